// The expected-failure cases (expected_failures_cases.hpp) under Catch2.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <mcp_loadtest/catch2.hpp>

#include "expected_failures_cases.hpp"
#include "support/leak_check.hpp"

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    const int rc = Catch::Session().run(argc, argv);
    return mlt_test::report_leaks(fds_before) > 0 ? 100 : rc;
}
