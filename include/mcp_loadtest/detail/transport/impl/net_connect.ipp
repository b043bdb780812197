// Definitions of detail/transport/net_connect.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/net_connect.hpp>

#include <asio/connect.hpp>
#include <asio/ip/address.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>

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
