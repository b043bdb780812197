// The built-in bug-class detectors, each a short composition of the public
// combinators (docs/scenarios.md shows how to write your own). Each returns a
// plain report struct.
#pragma once

#include <mcp_loadtest/detectors/cold_start.hpp>
#include <mcp_loadtest/detectors/deadlock_probe.hpp>
#include <mcp_loadtest/detectors/race_check.hpp>
#include <mcp_loadtest/detectors/cross_talk.hpp>
#include <mcp_loadtest/detectors/head_of_line.hpp>
#include <mcp_loadtest/detectors/cancellation.hpp>
#include <mcp_loadtest/detectors/payload_sweep.hpp>
#include <mcp_loadtest/detectors/session_churn.hpp>
#include <mcp_loadtest/detectors/auth_check.hpp>
