// doctest main for the suite: runs the tests, then audits for leaked server
// processes and file descriptors (a leak fails the run).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "leak_check.hpp"

int main(int argc, char** argv) {
    const auto fds_before = mlt_test::open_fds();
    doctest::Context context(argc, argv);
    const int rc = context.run();
    if (context.shouldExit()) return rc;
    return mlt_test::report_leaks(fds_before) > 0 ? 1 : rc;
}
