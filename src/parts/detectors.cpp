// mcp_loadtest::separate, part "detectors": the detectors (deadlock probe, race check, cross-talk, cancellation, head-of-line, payload sweep, session churn, cold start).
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/cross_talk_attribution.ipp>
#include <mcp_loadtest/detail/impl/payload_text.ipp>
#include <mcp_loadtest/detectors/impl/cancellation.ipp>
#include <mcp_loadtest/detectors/impl/cold_start.ipp>
#include <mcp_loadtest/detectors/impl/cross_talk.ipp>
#include <mcp_loadtest/detectors/impl/deadlock_probe.ipp>
#include <mcp_loadtest/detectors/impl/head_of_line.ipp>
#include <mcp_loadtest/detectors/impl/payload_sweep.ipp>
#include <mcp_loadtest/detectors/impl/race_check.ipp>
#include <mcp_loadtest/detectors/impl/session_churn.ipp>
