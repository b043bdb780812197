// Catch2 v2's implementation, compiled once for both Catch2 binaries of the
// suite (their mains differ): it is the largest file either would compile.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch2_session.hpp"

int mlt_test::run_catch2(int argc, char** argv) { return Catch::Session().run(argc, argv); }
