// The MCP_* test macros, once for every framework. An adapter (doctest.hpp,
// catch2.hpp, gtest.hpp) defines three primitives, then includes this header:
//
//   MCP_LOADTEST_DETAIL_ASSERT(KIND, cond, message)
//       KIND is CHECK (record and go on) or REQUIRE (record and stop the case).
//       A framework assertion of `cond` that shows `message` when it fails. It
//       must go through the framework's assertion machinery, on the calling
//       (test) thread, so the result is counted in JUnit output.
//   MCP_LOADTEST_DETAIL_TEST_CASE(...)
//       The framework's test-case macro (name, then decorators or tags;
//       GoogleTest: suite and test name, and gtest.hpp names the case macros
//       MCP_LOADTEST_TEST and MCP_LOADTEST_TEST_LIMIT).
//   MCP_LOADTEST_DETAIL_CASE_FAILED(message)
//       A counted, non-fatal failure of the case itself (time limit, escaped
//       exception), reported at the case's line.
#pragma once

#include <mcp_loadtest/assertions.hpp>
#include <mcp_loadtest/detail/testing/case_runner.hpp>

#include <chrono>
#include <string>

/// A test case whose body is a coroutine (co_await freely). Arguments: the
/// name, then the framework's decorators or tags.
#define MCP_LOADTEST_CASE(...)                                                                      \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_TEST_CASE, MCP_LOADTEST_DETAIL_CASE_FAILED,        \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             ::mcp_loadtest::default_case_time_limit(), __VA_ARGS__)

/// The same with its own whole-case time limit (a std::chrono duration).
#define MCP_LOADTEST_CASE_LIMIT(limit, ...)                                                         \
    MCP_LOADTEST_DETAIL_CASE(MCP_LOADTEST_DETAIL_TEST_CASE, MCP_LOADTEST_DETAIL_CASE_FAILED,        \
                             MCP_LOADTEST_DETAIL_UNIQUE(mcp_loadtest_case_body_),                   \
                             std::chrono::duration_cast<std::chrono::milliseconds>(limit), __VA_ARGS__)

// ---- calls --------------------------------------------------------------------

#define MCP_LOADTEST_DETAIL_CALL_OK(KIND, ...)                                                      \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (__VA_ARGS__);                          \
        MCP_LOADTEST_DETAIL_ASSERT(KIND, mcp_loadtest_r.ok(),                                       \
                                   (mcp_loadtest_r.describe_call() + ": " + mcp_loadtest_r.describe())); \
    } while (false)

/// Checks that a call_result is ok; on failure prints the call and its outcome.
#define MCP_CHECK_OK(...) MCP_LOADTEST_DETAIL_CALL_OK(CHECK, __VA_ARGS__)
#define MCP_REQUIRE_OK(...) MCP_LOADTEST_DETAIL_CALL_OK(REQUIRE, __VA_ARGS__)

/// Checks a call's outcome, e.g. MCP_CHECK_OUTCOME(r, mcp_loadtest::outcome::hang).
#define MCP_CHECK_OUTCOME(result, expected)                                                         \
    do {                                                                                            \
        const ::mcp_loadtest::call_result& mcp_loadtest_r = (result);                               \
        MCP_LOADTEST_DETAIL_ASSERT(CHECK, mcp_loadtest_r.outcome == (expected),                     \
                                   (mcp_loadtest_r.describe_call() + ": expected " +                \
                                    std::string(::mcp_loadtest::to_string(expected)) + ", got " +   \
                                    mcp_loadtest_r.describe()));                                    \
    } while (false)

// ---- load reports and detectors ----------------------------------------------
// Each prints what was violated, expected vs actual, and what it means
// (assertions.hpp): the check passes when that text is empty.

#define MCP_LOADTEST_DETAIL_TEXT_EMPTY(KIND, text_expr)                                             \
    do {                                                                                            \
        const std::string mcp_loadtest_text = (text_expr);                                          \
        MCP_LOADTEST_DETAIL_ASSERT(KIND, mcp_loadtest_text.empty(), mcp_loadtest_text);             \
    } while (false)

/// The load report met every threshold (and the run was not aborted).
#define MCP_CHECK_PASSED(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::passed_failure(report))
#define MCP_REQUIRE_PASSED(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::passed_failure(report))
/// The deadlock probe found no call that never answered.
#define MCP_CHECK_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::no_deadlock_failure(probe))
#define MCP_REQUIRE_NO_DEADLOCK(probe) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::no_deadlock_failure(probe))
/// The race check saw one response only.
#define MCP_CHECK_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::no_divergence_failure(race))
#define MCP_REQUIRE_NO_DIVERGENCE(race) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::no_divergence_failure(race))
/// No sampled server leaked memory, fds or threads.
#define MCP_CHECK_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::no_leak_failure(report))
#define MCP_REQUIRE_NO_LEAK(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::no_leak_failure(report))

/// The ceiling search (ceiling.hpp) found a sustainable rate of at least `rate` iterations/s;
/// on failure, why each rate at or below it failed.
#define MCP_CHECK_CEILING_AT_LEAST(report, rate) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::ceiling_at_least_failure(report, rate))
#define MCP_REQUIRE_CEILING_AT_LEAST(report, rate) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::ceiling_at_least_failure(report, rate))

/// The bug-class detectors (docs/detectors.md): the check fails with the
/// report's verdict sentence.
#define MCP_LOADTEST_DETAIL_DETECTOR(KIND, report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(KIND, ::mcp_loadtest::detail::detector_failure(report))
/// Every reply of the cross-talk check carried its own request's data.
#define MCP_CHECK_NO_CROSS_TALK(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_NO_CROSS_TALK(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// A fast call stayed fast while slow calls were in flight.
#define MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_NO_HEAD_OF_LINE_BLOCKING(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// Cancelled calls were honoured, and the server survived them and stayed fast.
#define MCP_CHECK_CANCELLATION_SAFE(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_CANCELLATION_SAFE(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// Every payload size of the sweep round-tripped.
#define MCP_CHECK_NO_PAYLOAD_LIMIT(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_NO_PAYLOAD_LIMIT(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// Session churn left nothing behind, and the next session always worked.
#define MCP_CHECK_CLEAN_CHURN(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_CLEAN_CHURN(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// Every security check of auth_check passed or could not be run (no finding).
#define MCP_CHECK_AUTH_SECURE(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_AUTH_SECURE(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// replay() (replay/replay.hpp) found every recorded reply answered alike; the failure lists each change.
#define MCP_CHECK_REPLAY_MATCHES(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_REPLAY_MATCHES(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)
/// The setup doctor (doctor.hpp) found no problem; the failure lists each with its fix.
#define MCP_CHECK_DOCTOR_OK(report) MCP_LOADTEST_DETAIL_DETECTOR(CHECK, report)
#define MCP_REQUIRE_DOCTOR_OK(report) MCP_LOADTEST_DETAIL_DETECTOR(REQUIRE, report)

/// The running test's name, for the command a missing baseline prints ("" when unknown).
#if defined(DOCTEST_LIBRARY_INCLUDED)
#define MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME()                                                     \
    (::doctest::getContextOptions() && ::doctest::getContextOptions()->currentTest                  \
         ? std::string(::doctest::getContextOptions()->currentTest->m_name)                         \
         : std::string())
#elif defined(CATCH_VERSION_MAJOR) || defined(CATCH_TEST_MACROS_HPP_INCLUDED)
#define MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME() std::string(::Catch::getResultCapture().getCurrentTestName())
#elif defined(GTEST_TEST)
#define MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME()                                                     \
    (::testing::UnitTest::GetInstance()->current_test_info()                                        \
         ? std::string(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()) + \
               "." + ::testing::UnitTest::GetInstance()->current_test_info()->name()                \
         : std::string())
#else
#define MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME() std::string()
#endif
/// The report did not regress against its baseline file (include <mcp_loadtest/report/baseline.hpp>):
/// MCP_CHECK_NO_REGRESSION(report, "perf/baselines/echo.json"), optionally with comparison_rules
/// as a third argument. A missing baseline fails with the command that creates it.
#define MCP_CHECK_NO_REGRESSION(report, ...)                                                        \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::no_regression_failure(            \
                                              (report), MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME(), __VA_ARGS__))
#define MCP_REQUIRE_NO_REGRESSION(report, ...)                                                      \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::no_regression_failure(          \
                                                (report), MCP_LOADTEST_DETAIL_CURRENT_TEST_NAME(), __VA_ARGS__))

/// The fuzzing campaign (fuzz.hpp) found no error or critical finding.
#define MCP_CHECK_FUZZ_CLEAN(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::fuzz_clean_failure(report))
#define MCP_REQUIRE_FUZZ_CLEAN(report) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::fuzz_clean_failure(report))
/// Strict mode found no schema violation (a session or a load_report).
#define MCP_CHECK_NO_SCHEMA_VIOLATIONS(x) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::schema_violations_failure(x))
#define MCP_REQUIRE_NO_SCHEMA_VIOLATIONS(x) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::schema_violations_failure(x))
/// At least `minimum` (0..1) of the listed tools were called (coverage.hpp);
/// a failure names every tool never called.
#define MCP_CHECK_COVERAGE(report, minimum) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(CHECK, ::mcp_loadtest::detail::coverage_failure((report), (minimum)))
#define MCP_REQUIRE_COVERAGE(report, minimum) \
    MCP_LOADTEST_DETAIL_TEXT_EMPTY(REQUIRE, ::mcp_loadtest::detail::coverage_failure((report), (minimum)))

/// An ad-hoc objective: MCP_CHECK_SLO(report, report.overall.latency.p99 < 300ms).
/// On failure it prints the expression and the report's summary. The
/// parentheses let the expression hold commas, && and ||.
#define MCP_CHECK_SLO(report, ...) MCP_LOADTEST_DETAIL_ASSERT(CHECK, (__VA_ARGS__), (report).summary())
#define MCP_REQUIRE_SLO(report, ...) MCP_LOADTEST_DETAIL_ASSERT(REQUIRE, (__VA_ARGS__), (report).summary())
