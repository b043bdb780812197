// The same under GoogleTest.
#include <gtest/gtest.h>
#include <mcp_loadtest/gtest.hpp>

using namespace std::chrono_literals;

MCP_LOADTEST_TEST_LIMIT(10s, Load, Limited) { co_return; }

TEST(Plain, Unit) { EXPECT_EQ(mcp_loadtest::current_case(), nullptr); }
