// GoogleTest integration: MCP_LOADTEST_TEST, MCP_ASSERT and the check macros.
//
//     #include <gtest/gtest.h>
//     #include <mcp_loadtest/gtest.hpp>
//
//     MCP_LOADTEST_TEST(EchoServer, FirstCallAnswers) {
//         const mcp_loadtest::stdio_server server{"python3", {"server.py"}};
//         auto s = co_await mcp_loadtest::connect(server);
//         auto r = co_await s.call_tool("echo", mcp_loadtest::args("message", "hi"));
//         MCP_REQUIRE_OK(r);
//         EXPECT_EQ(r.text(), "hi");
//     }
//
// The body is a coroutine. GoogleTest's EXPECT_* and ADD_FAILURE() work in it.
// Its ASSERT_*, FAIL() and GTEST_SKIP() do not compile there: they expand to
// `return`, which a coroutine cannot use. Write MCP_ASSERT(condition) << "why"
// instead (or the MCP_REQUIRE_* macros): it records a fatal failure at its own
// line and stops the body.
#pragma once

#ifndef GTEST_TEST
#error "include <gtest/gtest.h> before <mcp_loadtest/gtest.hpp>"
#endif
#ifdef MCP_LOADTEST_DETAIL_ASSERT
#error "<mcp_loadtest/gtest.hpp> cannot share a file with another framework's adapter"
#endif

#include <mcp_loadtest/detail/testing/case_runner.hpp>
// Only the session layer (stdio): load tests add <mcp_loadtest/run.hpp>,
// detectors <mcp_loadtest/detectors.hpp>, network servers their transport's
// header, so a test file pays the compile time of what it uses.
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <string>

namespace mcp_loadtest::detail {

/// Thrown by a failed MCP_ASSERT or MCP_REQUIRE_* once GoogleTest has recorded
/// the fatal failure, to stop the coroutine; the test that MCP_LOADTEST_TEST
/// defines catches it silently. Not a std::exception, so the shared case
/// wrapper does not report it a second time as an escaped exception.
struct gtest_stop_case {};

/// One failed assertion: collects what is streamed into it, then records the
/// failure with GoogleTest at the assertion's file and line (so it is counted
/// in the XML output); a fatal one then stops the case.
class gtest_failure {
public:
    gtest_failure(bool fatal, const char* file, int line, const char* expression,
                  const ::testing::AssertionResult& result)
        : fatal_(fatal), file_(file), line_(line) {
        // The text of EXPECT_TRUE's failures.
        summary_ = std::string("Value of: ") + expression + "\n  Actual: false";
        if (result.message()[0] != '\0') summary_ += std::string(" (") + result.message() + ")";
        summary_ += "\nExpected: true";
    }

    ::testing::Message& stream() { return message_; }
    bool reported() const { return reported_; }

    void report() {
        reported_ = true;
        GTEST_MESSAGE_AT_(file_, line_, summary_.c_str(),
                          fatal_ ? ::testing::TestPartResult::kFatalFailure
                                 : ::testing::TestPartResult::kNonFatalFailure)
            << message_;
        if (fatal_) throw gtest_stop_case{};
    }

private:
    bool fatal_;
    bool reported_ = false;
    const char* file_;
    int line_;
    std::string summary_;
    ::testing::Message message_;
};

}  // namespace mcp_loadtest::detail

// An assertion that is a single statement, accepts `<< message`, and has no
// `return`: the `for` runs its body (the streamed message) once, then reports.
// The switch keeps a following `else` from binding to the inner `if`.
#define MCP_LOADTEST_DETAIL_GTEST_ASSERT(fatal, text, ...)                                          \
    switch (0)                                                                                      \
    case 0:                                                                                         \
    default:                                                                                        \
        if (const ::testing::AssertionResult mcp_loadtest_ar = ::testing::AssertionResult(__VA_ARGS__)) { \
        } else                                                                                      \
            for (::mcp_loadtest::detail::gtest_failure mcp_loadtest_failure(fatal, __FILE__, __LINE__, \
                                                                            text, mcp_loadtest_ar);   \
                 !mcp_loadtest_failure.reported(); mcp_loadtest_failure.report())                   \
            mcp_loadtest_failure.stream()

/// ASSERT_TRUE for coroutine bodies: on failure, records a fatal failure at
/// this line (with whatever is streamed into it) and stops the case. Use it
/// wherever ASSERT_* would be written in an ordinary test:
///     MCP_ASSERT(tools.ok()) << "tools/list failed";
/// It throws (a private type that MCP_LOADTEST_TEST catches), so it works in
/// any function the body calls, but only inside an MCP_LOADTEST_TEST.
#define MCP_ASSERT(...) MCP_LOADTEST_DETAIL_GTEST_ASSERT(true, #__VA_ARGS__, __VA_ARGS__)

// The adapter's primitives (see detail/testing/assertion_macros.hpp). CHECK records a
// non-fatal failure, REQUIRE a fatal one and stops the case.
#define MCP_LOADTEST_DETAIL_GTEST_FATAL_CHECK false
#define MCP_LOADTEST_DETAIL_GTEST_FATAL_REQUIRE true
#define MCP_LOADTEST_DETAIL_ASSERT(KIND, cond, message)                                             \
    MCP_LOADTEST_DETAIL_GTEST_ASSERT(MCP_LOADTEST_DETAIL_GTEST_FATAL_##KIND, #cond, cond) << (message)
#define MCP_LOADTEST_DETAIL_CASE_FAILED(message) GTEST_NONFATAL_FAILURE_(std::string(message).c_str())
// The test's name as gtest_discover_tests names it: Suite.Name.
#define MCP_LOADTEST_DETAIL_FRAMEWORK "gtest"
#define MCP_LOADTEST_DETAIL_CASE_NAME(Suite, Name) std::string(#Suite "." #Name)
// GoogleTest's TEST, whose body runs the case and ends it quietly when an
// MCP_ASSERT or MCP_REQUIRE_* stopped it (its failure is already recorded).
#define MCP_LOADTEST_DETAIL_TEST_CASE(Suite, Name)                                                  \
    static void mcp_loadtest_gtest_##Suite##_##Name();                                              \
    GTEST_TEST(Suite, Name) {                                                                       \
        try {                                                                                       \
            mcp_loadtest_gtest_##Suite##_##Name();                                                  \
        } catch (const ::mcp_loadtest::detail::gtest_stop_case&) {                                  \
        }                                                                                           \
    }                                                                                               \
    static void mcp_loadtest_gtest_##Suite##_##Name()

#include <mcp_loadtest/detail/testing/assertion_macros.hpp>

/// A GoogleTest test, TEST(Suite, Name), whose body is a coroutine (co_await
/// freely), run with the whole-case time limit (default_case_time_limit()).
#define MCP_LOADTEST_TEST(Suite, Name)                                                              \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_TEST_CASE, MCP_LOADTEST_DETAIL_CASE_FAILED,        \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             ::mcp_loadtest::default_case_time_limit(), Suite, Name)

/// The same with its own whole-case time limit (a std::chrono duration).
#define MCP_LOADTEST_TEST_LIMIT(limit, Suite, Name)                                                 \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_TEST_CASE, MCP_LOADTEST_DETAIL_CASE_FAILED,        \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             std::chrono::duration_cast<std::chrono::milliseconds>(limit), Suite, Name)
