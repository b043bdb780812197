// mcp_loadtest::separate, part "analysis": OAuth, the detectors, the ceiling search, strict validation, the protocol fuzzer, call_every_tool(), report renderers, histogram encodings, baselines and comparisons, reply diffs, recordings.
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/os/impl/atomic_file.ipp>
#include <mcp_loadtest/detail/auth/impl/discovery.ipp>
#include <mcp_loadtest/detail/auth/impl/http_fetch.ipp>
#include <mcp_loadtest/detail/auth/impl/jwt.ipp>
#include <mcp_loadtest/detail/auth/impl/oauth_flow.ipp>
#include <mcp_loadtest/impl/auth.ipp>
#include <mcp_loadtest/detail/detectors/impl/cross_talk_attribution.ipp>
#include <mcp_loadtest/detail/text/impl/format.ipp>
#include <mcp_loadtest/detail/detectors/impl/fuzz_corpus.ipp>
#include <mcp_loadtest/detail/text/impl/html_escape.ipp>
#include <mcp_loadtest/detail/detectors/impl/payload_text.ipp>
#include <mcp_loadtest/detail/detectors/impl/schema_arguments.ipp>
#include <mcp_loadtest/detail/report/impl/svg_chart.ipp>
#include <mcp_loadtest/detail/text/impl/truncate_for_message.ipp>
#include <mcp_loadtest/detectors/impl/auth_check.ipp>
#include <mcp_loadtest/detectors/impl/cancellation.ipp>
#include <mcp_loadtest/detectors/impl/cold_start.ipp>
#include <mcp_loadtest/detectors/impl/cross_talk.ipp>
#include <mcp_loadtest/detectors/impl/deadlock_probe.ipp>
#include <mcp_loadtest/detectors/impl/head_of_line.ipp>
#include <mcp_loadtest/detectors/impl/payload_sweep.ipp>
#include <mcp_loadtest/detectors/impl/race_check.ipp>
#include <mcp_loadtest/detectors/impl/session_churn.ipp>
#include <mcp_loadtest/histogram/impl/hdr_v2.ipp>
#include <mcp_loadtest/histogram/impl/json.ipp>
#include <mcp_loadtest/impl/call_every_tool.ipp>
#include <mcp_loadtest/impl/ceiling.ipp>
#include <mcp_loadtest/impl/fuzz.ipp>
#include <mcp_loadtest/impl/fuzz_report.ipp>
#include <mcp_loadtest/report/impl/baseline.ipp>
#include <mcp_loadtest/report/impl/compare.ipp>
#include <mcp_loadtest/report/impl/compare_servers.ipp>
#include <mcp_loadtest/report/impl/grade.ipp>
#include <mcp_loadtest/report/impl/hlog.ipp>
#include <mcp_loadtest/report/impl/html.ipp>
#include <mcp_loadtest/report/impl/markdown.ipp>
#include <mcp_loadtest/report/impl/merge.ipp>
#include <mcp_loadtest/report/impl/run_directory.ipp>
#include <mcp_loadtest/report/impl/shard.ipp>
#include <mcp_loadtest/report/impl/terminal.ipp>
#include <mcp_loadtest/replay/impl/json_diff.ipp>
#include <mcp_loadtest/replay/impl/recording.ipp>
#include <mcp_loadtest/replay/impl/recorded_load.ipp>
#include <mcp_loadtest/replay/impl/replay.ipp>
#include <mcp_loadtest/replay/impl/replay_report.ipp>
#if __has_include(<valijson/validator.hpp>)  // strict validation needs valijson, as in impl/src.hpp
#include <mcp_loadtest/detail/detectors/impl/json_schema_check.ipp>
#include <mcp_loadtest/impl/strict.ipp>
#endif
