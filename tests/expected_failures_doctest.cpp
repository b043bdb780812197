// The expected-failure cases (expected_failures_cases.hpp) under doctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

#include "expected_failures_cases.hpp"
#include "support/leak_check.hpp"

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    doctest::Context context(argc, argv);
    const int rc = context.run();
    if (context.shouldExit()) return rc;
    return mlt_test::report_leaks(fds_before) > 0 ? 100 : rc;
}
