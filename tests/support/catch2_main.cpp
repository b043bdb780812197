// Catch2 v2 main for the suite, with the same leak audit as doctest_main.cpp.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "leak_check.hpp"

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    const int rc = Catch::Session().run(argc, argv);
    return mlt_test::report_leaks(fds_before) > 0 ? 1 : rc;
}
