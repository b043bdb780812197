// mcp_loadtest::separate, part "reports": reports, histograms, baselines and comparisons.
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/atomic_file.ipp>
#include <mcp_loadtest/detail/impl/format.ipp>
#include <mcp_loadtest/detail/impl/html_escape.ipp>
#include <mcp_loadtest/detail/impl/svg_chart.ipp>
#include <mcp_loadtest/detail/impl/truncate_for_message.ipp>
#include <mcp_loadtest/histogram/impl/hdr_v2.ipp>
#include <mcp_loadtest/histogram/impl/json.ipp>
#include <mcp_loadtest/histogram/impl/latency_histogram.ipp>
#include <mcp_loadtest/impl/load_report.ipp>
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
