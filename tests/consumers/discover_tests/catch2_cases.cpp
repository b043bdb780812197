// The same under Catch2 v2.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <mcp_loadtest/catch2.hpp>

using namespace std::chrono_literals;

MCP_LOADTEST_CASE_LIMIT(2s, "catch load", "[load]") { co_return; }

TEST_CASE("catch plain", "[unit]") { CHECK(mcp_loadtest::current_case() == nullptr); }
