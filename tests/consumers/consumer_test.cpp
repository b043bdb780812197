// The one small program every consumer check builds and runs
// (.ci/check-consumers.sh; one project per way under tests/consumers/).
// It proves the library was found with the right flags: the echo fixture
// answers a tools/call, and MCP_LOADTEST_WITH_TLS is defined exactly when the
// consumer expects TLS. The build defines EXPECT_TLS (0 or 1), and PYTHON and
// ECHO_SERVER, or NATIVE_FIXTURE: the C++ fixture server (fixtures/native), which
// the Windows build (under Wine, no Python) uses instead.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
// The HTTP transport, and with MCP_LOADTEST_WITH_TLS its OpenSSL code: a
// consumer whose flags do not link OpenSSL fails to link; on Windows, one whose
// flags do not link Winsock.
#include <mcp_loadtest/http.hpp>

#if !defined(EXPECT_TLS) || (!defined(NATIVE_FIXTURE) && (!defined(PYTHON) || !defined(ECHO_SERVER)))
#error "build with -DEXPECT_TLS=0|1 -DPYTHON=\"python3\" -DECHO_SERVER=\"<repo>/fixtures/echo_server.py\" (or -DNATIVE_FIXTURE=\"<mcp_fixture_server>\")"
#endif
#if EXPECT_TLS && !defined(MCP_LOADTEST_WITH_TLS)
#error "this consumer expects TLS, but the library's flags do not define MCP_LOADTEST_WITH_TLS"
#elif !EXPECT_TLS && defined(MCP_LOADTEST_WITH_TLS)
#error "this consumer expects no TLS, but the library's flags define MCP_LOADTEST_WITH_TLS"
#endif
static_assert(mcp_loadtest::detail::tls_available() == bool(EXPECT_TLS));

MCP_LOADTEST_CASE("the echo tool answers") {
#if defined(NATIVE_FIXTURE)
    const mcp_loadtest::stdio_server server{NATIVE_FIXTURE, {}};
#else
    const mcp_loadtest::stdio_server server{PYTHON, {ECHO_SERVER}};
#endif
    auto session = co_await mcp_loadtest::connect(server);
    MCP_CHECK_OK(co_await session.call_tool("echo", mcp_loadtest::args("message", "hi")));
    co_await session.close();
}
