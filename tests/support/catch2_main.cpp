// Catch2 main for the suite, with the same leak audit as doctest_main.cpp
// (Catch2 itself, v2 or v3, is compiled in catch2_session.cpp: each binary
// links this main with the session of its Catch2 version).
#include "catch2_session.hpp"
#include "leak_check.hpp"

int main(int argc, char** argv) {
    mlt_test::binary_stdout();
    const auto fds_before = mlt_test::open_fds();
    const int rc = mlt_test::run_catch2(argc, argv);
    return mlt_test::report_leaks(fds_before) > 0 ? 1 : rc;
}
