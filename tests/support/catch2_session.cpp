// Catch2's implementation, compiled once for both Catch2 binaries of the
// suite (their mains differ): it is the largest file either would compile.
// Catch2 v2 by default; with MCP_LOADTEST_TEST_CATCH2_V3, Catch2 v3's
// amalgamated sources (tests/CMakeLists.txt), without their main.
#if defined(MCP_LOADTEST_TEST_CATCH2_V3)
#define CATCH_AMALGAMATED_CUSTOM_MAIN
#include <catch_amalgamated.cpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "catch2_session.hpp"

int mlt_test::run_catch2(int argc, char** argv) { return Catch::Session().run(argc, argv); }
