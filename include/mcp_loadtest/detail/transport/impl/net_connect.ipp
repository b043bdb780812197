// Definitions of detail/transport/net_connect.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/net_connect.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>

#include <asio/connect.hpp>
#include <asio/write.hpp>
#include <asio/ip/address.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>

#include <array>
#include <cerrno>
#include <memory>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string connect_failure_hint(const asio::error_code& ec) {
    if (ec == asio::error::connection_refused)
        return " Hint: nothing is listening there; start the server first (or wait until it is ready), "
               "and check the host and port.";
    if (ec == asio::error::timed_out || ec == asio::error::operation_aborted)
        return " Hint: the host did not answer in time; check the address and any firewall, or raise "
               "limits.connect_timeout.";
    if (ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again)
        return " Hint: the host name does not resolve; check the spelling, or use 127.0.0.1.";
    return {};
}

MCP_LOADTEST_DECL void async_connect_tcp(asio::any_io_executor ex, const std::string& host, const std::string& port,
                                         std::chrono::milliseconds timeout, connect_handler handler) {
    struct state {
        asio::ip::tcp::resolver resolver;
        asio::ip::tcp::socket socket;
        asio::steady_timer timer;
        connect_handler handler;
        std::string where;
        bool done = false, timed_out = false;
        state(asio::any_io_executor ex, connect_handler h, std::string w)
            : resolver(ex), socket(ex), timer(ex), handler(std::move(h)), where(std::move(w)) {}
        void finish(const asio::error_code& ec) {
            if (done) return;
            done = true;
            timer.cancel();
            if (ec || timed_out) {
                const asio::error_code why = timed_out ? asio::error::timed_out : ec;
                asio::error_code ignored;
                socket.close(ignored);
                handler({std::nullopt, "cannot connect to " + where + ": " +
                                           (timed_out ? std::string("no connection within the connect timeout")
                                                      : why.message()) +
                                           "." + connect_failure_hint(why)});
                return;
            }
            asio::error_code ignored;
            socket.set_option(asio::ip::tcp::no_delay(true), ignored);
            handler({connected_socket(std::move(socket)), {}});
        }
    };
    const std::string where = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
    auto st = std::make_shared<state>(ex, std::move(handler), where);
    st->timer.expires_after(timeout);
    st->timer.async_wait([st](const asio::error_code& ec) {
        if (ec || st->done) return;
        st->timed_out = true;
        asio::error_code ignored;
        st->resolver.cancel();
        st->socket.close(ignored);
    });
    asio::error_code parse_ec;
    const auto address = asio::ip::make_address(host, parse_ec);
    if (!parse_ec) {
        unsigned long p = 0;
        try {
            p = std::stoul(port);
        } catch (...) {
            p = 70000;
        }
        if (p > 65535) {
            st->finish(asio::error::invalid_argument);
            return;
        }
        st->socket.async_connect(asio::ip::tcp::endpoint(address, static_cast<unsigned short>(p)),
                                 [st](const asio::error_code& ec) { st->finish(ec); });
        return;
    }
    st->resolver.async_resolve(host, port, [st](const asio::error_code& ec, asio::ip::tcp::resolver::results_type r) {
        if (ec || st->timed_out) {
            st->finish(ec);
            return;
        }
        asio::async_connect(st->socket, r, [st](const asio::error_code& ec2, const asio::ip::tcp::endpoint&) {
            st->finish(ec2);
        });
    });
}

MCP_LOADTEST_DECL connect_route route_to(const url& target, proxy_choice choice) {
    connect_route r;
    r.host = target.host;
    r.port = target.port_text;
    r.tunnel = choice.tunnel_for(target);
    if (choice.proxy) r.proxy_authorization = proxy_authorization(*choice.proxy);
    r.via = std::move(choice);
    return r;
}

MCP_LOADTEST_DECL void async_connect_route(asio::any_io_executor ex, const connect_route& route,
                                           std::chrono::milliseconds timeout, connect_handler handler) {
    if (!route.via.error.empty()) {
        handler({std::nullopt, route.via.error + ". Hint: fix the proxy URL, or connect directly with "
                                                 "proxy.from_environment = false."});
        return;
    }
    if (!route.via.proxy) {
        async_connect_tcp(std::move(ex), route.host, route.port, timeout, std::move(handler));
        return;
    }
    const std::string authority = (route.host.find(':') != std::string::npos ? "[" + route.host + "]" : route.host) +
                                  ":" + route.port;
    const std::string proxy = route.via.describe();
    const auto started = clock::now();
    auto reached = [ex, route, authority, proxy, started, timeout,
                    handler = std::move(handler)](connect_result r) mutable {
        if (!r.socket) {
            handler({std::nullopt, "cannot connect to " + proxy + " (on the way to " + authority + "): " + r.error +
                                       " Hint: check that the proxy runs, or bypass it (proxy.no_proxy, NO_PROXY, "
                                       "or proxy.from_environment = false)."});
            return;
        }
        if (!route.tunnel) {
            handler(std::move(r));
            return;
        }
        // CONNECT authority, then read the proxy's answer; bounded by what is left of the timeout.
        struct tunnel_state {
            connected_socket socket;
            asio::steady_timer timer;
            connect_handler handler;
            std::string request, authority, proxy;
            http1::response_parser parser{http1::limits{16 * 1024, 64 * 1024}};
            std::array<char, 4096> buffer{};
            bool done = false, timed_out = false;
            tunnel_state(connected_socket s, asio::any_io_executor ex, connect_handler h)
                : socket(std::move(s)), timer(ex), handler(std::move(h)) {}
            void fail(const std::string& why) {
                if (done) return;
                done = true;
                timer.cancel();
                asio::error_code ignored;
                socket.close(ignored);
                handler({std::nullopt, why});
            }
            void read(const std::shared_ptr<tunnel_state>& self) {
                socket.async_read_some(asio::buffer(buffer), [self](const asio::error_code& ec, std::size_t n) {
                    self->on_bytes(self, ec, n);
                });
            }
            void on_bytes(const std::shared_ptr<tunnel_state>& self, const asio::error_code& ec, std::size_t n) {
                if (done) return;
                const std::string prefix = proxy + " did not open a tunnel to " + authority + ": ";
                if (timed_out) return fail(prefix + "no answer to CONNECT within the connect timeout. Hint: check "
                                                    "the proxy, or raise limits.connect_timeout.");
                std::string_view in(buffer.data(), n);
                while (true) {
                    const http1::step st = parser.parse(in);
                    in.remove_prefix(st.consumed);
                    if (st.kind == http1::event::upgrade) {
                        if (!in.empty())
                            return fail(prefix + "it sent " + std::to_string(in.size()) +
                                        " bytes after its answer to CONNECT, before the server could speak");
                        done = true;
                        timer.cancel();
                        handler({std::move(socket), {}});
                        return;
                    }
                    if (st.kind == http1::event::headers) {
                        const int status = parser.status();
                        std::string why = prefix + "HTTP " + std::to_string(status) +
                                          (parser.head().reason.empty() ? std::string()
                                                                        : " " + std::string(parser.head().reason)) +
                                          " to CONNECT.";
                        if (status == 407)
                            why += " Hint: the proxy wants credentials; put them in its URL "
                                   "(http://user:password@host:port, never printed).";
                        else if (status == 403 || status == 405)
                            why += " Hint: the proxy does not allow tunnels to this host or port; bypass it "
                                   "(proxy.no_proxy, NO_PROXY) or ask whoever runs it.";
                        else if (status >= 500)
                            why += " Hint: the proxy could not reach the server; check the server's address "
                                   "as the proxy sees it.";
                        return fail(why);
                    }
                    if (st.kind == http1::event::error)
                        return fail(prefix + "its answer to CONNECT is not HTTP: " + parser.last_error().message);
                    if (st.kind == http1::event::need_more) break;
                }
                if (ec)
                    return fail(prefix + "it closed the connection before answering CONNECT (" + ec.message() + ")");
                read(self);
            }
        };
        auto st = std::make_shared<tunnel_state>(std::move(*r.socket), ex, std::move(handler));
        st->authority = authority;
        st->proxy = proxy;
        http1::write_connect(st->request, authority, route.proxy_authorization);
        st->parser.expect_tunnel();
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started);
        st->timer.expires_after(std::max<std::chrono::milliseconds>(timeout - spent, std::chrono::milliseconds(1)));
        st->timer.async_wait([st](const asio::error_code& ec) {
            if (ec || st->done) return;
            st->timed_out = true;
            asio::error_code ignored;
            st->socket.close(ignored);
        });
        asio::async_write(st->socket, asio::buffer(st->request), [st](const asio::error_code& ec, std::size_t) {
            if (st->done) return;
            if (ec) {
                st->fail(st->proxy + " closed the connection while it was sent CONNECT (" + ec.message() + ")");
                return;
            }
            st->read(st);
        });
    };
    async_connect_tcp(std::move(ex), route.via.proxy->host, route.via.proxy->port_text, timeout, std::move(reached));
}

MCP_LOADTEST_DECL void async_connect_unix(asio::any_io_executor ex, const std::string& path, std::chrono::milliseconds timeout,
                                          connect_handler handler) {
    struct state {
        asio::local::stream_protocol::socket socket;
        asio::steady_timer timer;
        connect_handler handler;
        std::string path;
        bool done = false, timed_out = false;
        state(asio::any_io_executor ex, connect_handler h, std::string p)
            : socket(ex), timer(ex), handler(std::move(h)), path(std::move(p)) {}
    };
    auto st = std::make_shared<state>(ex, std::move(handler), path);
    st->timer.expires_after(timeout);
    st->timer.async_wait([st](const asio::error_code& ec) {
        if (ec || st->done) return;
        st->timed_out = true;
        asio::error_code ignored;
        st->socket.close(ignored);
    });
    st->socket.async_connect(asio::local::stream_protocol::endpoint(path), [st](const asio::error_code& ec) {
        if (st->done) return;
        st->done = true;
        st->timer.cancel();
        if (ec || st->timed_out) {
            std::string hint = ec.value() == ENOENT || ec == asio::error::connection_refused
                                   ? " Hint: no server is listening on that socket path; start it first."
                                   : connect_failure_hint(ec);
            st->handler({std::nullopt, "cannot connect to unix socket " + st->path + ": " +
                                           (st->timed_out ? std::string("no connection within the connect timeout")
                                                          : ec.message()) +
                                           "." + hint});
            return;
        }
        st->handler({connected_socket(std::move(st->socket)), {}});
    });
}

}  // namespace mcp_loadtest::detail
