// mcp-loadtest: load-test and bug-hunt MCP servers from ordinary unit tests.
// The whole public API, every transport included, except strict.hpp (strict
// mode needs the optional valijson dependency: include it where you use it).
// The test-framework adapters are doctest.hpp, catch2.hpp and gtest.hpp
// (testing.hpp picks one). A test file that needs less includes less:
// session.hpp (stdio), http.hpp, websocket.hpp, socket.hpp, run.hpp,
// detectors.hpp (docs/compile-time.md).
#pragma once

#include <mcp_loadtest/version.hpp>
#include <mcp_loadtest/outcome.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/case_time_limit.hpp>
#include <mcp_loadtest/process_status.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/network_server.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/session_info.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/http.hpp>
#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/websocket.hpp>
#include <mcp_loadtest/socket.hpp>
#include <mcp_loadtest/network.hpp>
#include <mcp_loadtest/server_process.hpp>
#include <mcp_loadtest/doctor.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/when_all.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/sessions.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/process_sampling.hpp>
#include <mcp_loadtest/leak_detection.hpp>
#include <mcp_loadtest/workload.hpp>
#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/thresholds.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/run_options.hpp>
#include <mcp_loadtest/iteration.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/ceiling.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/hang_evidence.hpp>
#include <mcp_loadtest/coverage.hpp>
#include <mcp_loadtest/schema_violation.hpp>
#include <mcp_loadtest/call_every_tool.hpp>
#include <mcp_loadtest/fuzz.hpp>
#include <mcp_loadtest/reports.hpp>
#include <mcp_loadtest/replay/json_diff.hpp>
#include <mcp_loadtest/replay/recording.hpp>
#include <mcp_loadtest/assertions.hpp>
