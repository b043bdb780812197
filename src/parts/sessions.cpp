// mcp_loadtest::separate, part "sessions": sessions, the stdio transport, the envelope reader and writer, servers.
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/bootstrap.ipp>
#include <mcp_loadtest/detail/impl/child_process.ipp>
#include <mcp_loadtest/detail/impl/completion.ipp>
#include <mcp_loadtest/detail/impl/handshake.ipp>
#include <mcp_loadtest/detail/impl/json_scan.ipp>
#include <mcp_loadtest/detail/impl/jsonrpc_writer.ipp>
#include <mcp_loadtest/detail/impl/line_transport.ipp>
#include <mcp_loadtest/detail/impl/make_transport.ipp>
#include <mcp_loadtest/detail/impl/send_queue.ipp>
#include <mcp_loadtest/detail/impl/send_request.ipp>
#include <mcp_loadtest/detail/impl/session_core.ipp>
#include <mcp_loadtest/detail/impl/session_stderr.ipp>
#include <mcp_loadtest/detail/impl/sigpipe.ipp>
#include <mcp_loadtest/detail/impl/stdio_transport.ipp>
#include <mcp_loadtest/detail/impl/transport.ipp>
#include <mcp_loadtest/detail/impl/transport_registry.ipp>
#include <mcp_loadtest/detail/impl/wire_text.ipp>
#include <mcp_loadtest/impl/any_server.ipp>
#include <mcp_loadtest/impl/call_result.ipp>
#include <mcp_loadtest/impl/client_options.ipp>
#include <mcp_loadtest/impl/json.ipp>
#include <mcp_loadtest/impl/server.ipp>
#include <mcp_loadtest/impl/server_process.ipp>
#include <mcp_loadtest/impl/session.ipp>
#include <mcp_loadtest/impl/session_info.ipp>
#include <mcp_loadtest/impl/sessions.ipp>
