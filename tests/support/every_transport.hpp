// The echo fixture on every transport: over stdio, and five network servers
// (TCP, Unix socket, Streamable HTTP, HTTP+SSE, WebSocket) launched for the test.
#pragma once

#include <mcp_loadtest/network.hpp>
#include <mcp_loadtest/server_process.hpp>

#include "support/fixtures.hpp"

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace mlt_test {

/// The server's stderr captured, not mixed into the test's output.
inline mcp_loadtest::stdio_server quiet(mcp_loadtest::stdio_server s) {
    s.stderr_to = mcp_loadtest::stderr_mode::capture;
    return s;
}

struct every_transport {
    mcp_loadtest::server_process tcp, unix_socket, http, sse, ws;
    std::vector<mcp_loadtest::any_server> servers;  ///< in the order of `names`
    const std::vector<std::string> names{"stdio", "tcp", "unix", "streamable-http", "http+sse", "websocket"};

    /// `mixed_http_replies`: the Streamable HTTP fixture answers some POSTs with
    /// JSON and some with an SSE stream.
    asio::awaitable<void> launch(bool mixed_http_replies = false) {
        const std::string socket_path = (std::filesystem::temp_directory_path() /
                                         ("mlt-every-" + std::to_string(::getpid()) + ".sock")).string();
        const auto tcp_cmd = quiet(fixture("tcp_server.py"));
        const auto unix_cmd = quiet(fixture("tcp_server.py", {"--unix", socket_path}));
        const auto http_cmd = mixed_http_replies ? quiet(fixture("http_server.py", {"--reply-mode", "mixed"}))
                                                 : quiet(fixture("http_server.py"));
        const auto sse_cmd = quiet(fixture("sse_server.py"));
        const auto ws_cmd = quiet(fixture("ws_server.py"));
        tcp = co_await mcp_loadtest::launch(tcp_cmd);
        unix_socket = co_await mcp_loadtest::launch(unix_cmd);
        http = co_await mcp_loadtest::launch(http_cmd);
        sse = co_await mcp_loadtest::launch(sse_cmd);
        ws = co_await mcp_loadtest::launch(ws_cmd);
        mcp_loadtest::http_server http_desc;
        http_desc.url = http.url();
        mcp_loadtest::sse_server sse_desc;
        sse_desc.url = sse.url();
        mcp_loadtest::websocket_server ws_desc;
        ws_desc.url = ws.url();
        servers = {quiet(fixture("echo_server.py")), mcp_loadtest::socket_server{tcp.url()},
                   mcp_loadtest::socket_server{unix_socket.url()}, http_desc, sse_desc, ws_desc};
    }
    asio::awaitable<void> close() {
        co_await tcp.close();
        co_await unix_socket.close();
        co_await http.close();
        co_await sse.close();
        co_await ws.close();
    }
};

}  // namespace mlt_test
