// The bug-class detectors of docs/detectors.md, each against a fixture that has
// its bug and a healthy twin (and server-everything where it applies). One
// translation unit; each detector's cases are in tests/detectors/<name>_cases.hpp.
// Configure with -DMCP_LOADTEST_TEST_ONLY=detectors/<name>_cases.hpp to build one.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

#include "support/fixtures.hpp"

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

#ifdef MCP_LOADTEST_TEST_ONLY
#include MCP_LOADTEST_TEST_ONLY
#else
#include "detectors/cross_talk_cases.hpp"
#include "detectors/head_of_line_cases.hpp"
#include "detectors/cancellation_cases.hpp"
#include "detectors/payload_sweep_cases.hpp"
#include "detectors/session_churn_cases.hpp"
#include "detectors/hang_evidence_cases.hpp"
#include "detectors/load_paths_cases.hpp"
#include "detectors/doctor_cases.hpp"
#include "detectors/auth_check_cases.hpp"
#endif
