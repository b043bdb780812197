// The expected-failure cases (expected_failures_cases.hpp) under Catch2 v2,
// and v3 (built again against its amalgamated sources: tests/CMakeLists.txt).
// Catch2 itself is compiled in support/catch2_session.cpp.
#if defined(MCP_LOADTEST_TEST_CATCH2_V3)
#include <catch_amalgamated.hpp>
#else
#include <catch2/catch.hpp>
#endif
#include <mcp_loadtest/catch2.hpp>

#include "expected_failures_cases.hpp"
#include "support/catch2_session.hpp"
#include "support/leak_check.hpp"

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    const int rc = mlt_test::run_catch2(argc, argv);
    return mlt_test::report_leaks(fds_before) > 0 ? 100 : rc;
}
