// Reports people read and regression gates (docs/reports.md): per-interval histograms and
// HdrHistogram logs, merges and shards, comparisons against baselines, Markdown / HTML /
// terminal forms, run directories, reply diffs and recordings (record and replay, docs/replay.md).
// One translation unit; the cases live in tests/reports/<part>_cases.hpp. Configure with
// -DMCP_LOADTEST_REPORTS_ONLY=reports/<part>_cases.hpp to build one.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

#include "support/fixtures.hpp"

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

#ifdef MCP_LOADTEST_REPORTS_ONLY
#include MCP_LOADTEST_REPORTS_ONLY
#else
#include "reports/intervals_cases.hpp"
#include "reports/compare_cases.hpp"
#include "reports/render_cases.hpp"
#include "reports/run_directory_cases.hpp"
#include "reports/json_diff_cases.hpp"
#include "reports/recording_cases.hpp"
#endif
