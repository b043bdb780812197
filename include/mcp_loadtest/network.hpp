// Every network transport: HTTP (Streamable HTTP and HTTP+SSE), WebSocket and
// TCP/Unix sockets. For a test that switches among them; one that uses a
// single transport includes only its header and compiles less.
#pragma once

#include <mcp_loadtest/http.hpp>
#include <mcp_loadtest/socket.hpp>
#include <mcp_loadtest/websocket.hpp>
