// Load cases and plain tests side by side in one doctest binary.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/run.hpp>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

// Runs for real under the check: its run directory's files are the ATTACHED_FILES.
MCP_LOADTEST_CASE("load one") {
    const mlt::stdio_server server{PYTHON, {ECHO_SERVER}};
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 300ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "hi"));
    auto report = co_await mlt::run(server, load, calls);
    CHECK(report.overall.outcomes.total() > 0);
}

MCP_LOADTEST_CASE_LIMIT(5s, "load two, limited") { co_return; }

TEST_CASE("plain one") { CHECK(1 + 1 == 2); }
TEST_CASE("plain two") { CHECK(mlt::current_case() == nullptr); }
