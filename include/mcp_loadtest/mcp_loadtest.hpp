// mcp-loadtest: load-test and bug-hunt MCP servers from ordinary unit tests.
// The whole public API; test-framework adapters are doctest.hpp and catch2.hpp.
#pragma once

#include <mcp_loadtest/version.hpp>
#include <mcp_loadtest/outcome.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/session_info.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/when_all.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/process_sampling.hpp>
#include <mcp_loadtest/leak_detection.hpp>
#include <mcp_loadtest/workload.hpp>
#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/thresholds.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/run_options.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/detectors.hpp>
