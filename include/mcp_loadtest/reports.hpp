// Every report form and regression tool (docs/reports.md): Markdown, HTML and terminal forms
// with grades, HdrHistogram interval logs, run directories, exact merges and sharded runs,
// statistical comparisons, baselines and the regression gate, cross-server comparisons.
// run.hpp already brings the run directory (and through it the Markdown, HTML and hlog forms).
#pragma once

#include <mcp_loadtest/report/grade.hpp>
#include <mcp_loadtest/report/markdown.hpp>
#include <mcp_loadtest/report/html.hpp>
#include <mcp_loadtest/report/terminal.hpp>
#include <mcp_loadtest/report/hlog.hpp>
#include <mcp_loadtest/report/run_directory.hpp>
#include <mcp_loadtest/report/merge.hpp>
#include <mcp_loadtest/report/shard.hpp>
#include <mcp_loadtest/report/compare.hpp>
#include <mcp_loadtest/report/baseline.hpp>
#include <mcp_loadtest/report/compare_servers.hpp>
