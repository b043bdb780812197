// Definitions of detail/auth/http_fetch.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/auth/http_fetch.hpp>

#include <mcp_loadtest/detail/transport/byte_stream.hpp>
#include <mcp_loadtest/detail/transport/socket_transport.hpp>

#include <memory>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<std::string> fetch_response::header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
        if (n.size() != name.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < n.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(n[i])) == std::tolower(static_cast<unsigned char>(name[i]));
        if (same) return v;
    }
    return std::nullopt;
}

namespace http_fetch_detail {
// The socket, its TLS and the timer that closes it when time is up, kept alive by the
// coroutine and the timer's handler alike.
struct connection_state {
    explicit connection_state(const asio::any_io_executor& ex) : stream(ex), deadline(ex) {}
    byte_stream stream;
    asio::steady_timer deadline;
    bool timed_out = false;
};
}  // namespace http_fetch_detail

MCP_LOADTEST_DECL asio::awaitable<fetch_response> http_fetch(const fetch_context& context, fetch_request request) {
    fetch_response out;
    const std::string where = request.method + " " + request.target.redacted();
    auto state = std::make_shared<http_fetch_detail::connection_state>(context.executor);
    state->deadline.expires_after(context.timeout);
    state->deadline.async_wait([state](const asio::error_code& ec) {
        if (ec) return;
        state->timed_out = true;
        asio::error_code ignored;
        state->stream.close(ignored);
    });

    auto ex = context.executor;
    const auto timeout = context.timeout;
    // Named first: GCC 12 mis-relocates temporaries with strings inside co_await.
    const connect_route route =
        route_to(request.target, choose_proxy(request.target, context.proxy, read_proxy_environment()));
    if (!route.via.error.empty()) {
        state->deadline.cancel();
        out.error = route.via.error;
        co_return out;
    }
    auto connecting = await_connect([ex, route, timeout](connect_handler h) {
        async_connect_route(ex, route, timeout, std::move(h));
    });
    connect_result connected = co_await std::move(connecting);
    if (!connected.socket) {
        state->deadline.cancel();
        out.error = connected.error;
        co_return out;
    }
    state->stream.assign(std::move(*connected.socket));
    if (request.target.secure()) {
#if defined(MCP_LOADTEST_WITH_TLS)
        std::shared_ptr<asio::ssl::context> ctx;
        try {
            ctx = make_tls_context(context.tls);
        } catch (const std::runtime_error& e) {
            state->deadline.cancel();
            out.error = e.what();
            co_return out;
        }
        state->stream.use_tls(ctx, request.target.host, context.tls.verify);
        asio::error_code hec;
        co_await state->stream.async_handshake(asio::redirect_error(asio::use_awaitable, hec));
        if (hec) {
            state->deadline.cancel();
            out.error = describe_tls_failure(hec, request.target.host_header(), context.tls,
                                             state->stream.tls_verify_error());
            co_return out;
        }
#else
        state->deadline.cancel();
        out.error = "https:// needs TLS, and this build of mcp-loadtest has none (OpenSSL was not found, or "
                    "MCP_LOADTEST_TLS is OFF)";
        co_return out;
#endif
    }

    std::vector<http1::field> fields;
    fields.reserve(request.headers.size() + 2);
    for (const auto& [n, v] : request.headers) fields.push_back({n, v});
    fields.push_back({"Connection", "close"});
    if (route.forwards() && !route.proxy_authorization.empty()) fields.push_back({"Proxy-Authorization", route.proxy_authorization});
    std::string wire;
    const std::string target = route.forwards() ? request.target.origin() + request.target.target : request.target.target;
    http1::write_request(wire, request.method,
                         request.host_override.empty() ? request.target.host_header() : request.host_override, target, std::span<const http1::field>(fields),
                         request.body);
    asio::error_code ec;
    co_await state->stream.async_write(asio::buffer(wire), asio::redirect_error(asio::use_awaitable, ec));

    http1::limits lim;
    lim.max_body_bytes = context.max_body;
    http1::response_parser parser(lim);
    if (request.method == "HEAD") parser.expect_no_body();
    std::vector<char> buffer(16 * 1024);
    bool done = false;
    std::string malformed;
    // Acts on one parser step; false when reading should stop here (done or failed).
    const auto take = [&](const http1::step& st) {
        switch (st.kind) {
            case http1::event::headers:
                out.status = parser.status();
                for (const auto& f : parser.head().fields) out.headers.emplace_back(f.name, f.value);
                return true;
            case http1::event::body: out.body.append(st.body); return true;
            case http1::event::done: done = true; return false;
            case http1::event::error: malformed = parser.last_error().message; return false;
            default: return true;
        }
    };
    while (!ec && !done && malformed.empty()) {
        const std::size_t n =
            co_await state->stream.async_read_some(asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, ec));
        std::string_view in(buffer.data(), n);
        for (;;) {
            const http1::step st = parser.parse(in);
            in.remove_prefix(st.consumed);
            if (!take(st) || st.kind == http1::event::need_more) break;
        }
        if (ec && !done && malformed.empty()) take(parser.eof());
    }
    if (!malformed.empty()) {
        done = false;
        ec = {};
        state->timed_out = false;
    }
    state->deadline.cancel();
    asio::error_code ignored;
    state->stream.close(ignored);
    if (!done) {
        out.status = 0;
        out.error = !malformed.empty() ? "malformed response to " + where + ": " + malformed
                    : state->timed_out ? where + " got no complete response within " +
                                           std::to_string(context.timeout.count()) + " ms"
                                     : where + " failed: " + (ec ? ec.message() : std::string("connection closed"));
    }
    co_return out;
}

}  // namespace mcp_loadtest::detail
