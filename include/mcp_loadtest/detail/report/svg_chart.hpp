// Hand-drawn SVG line charts for the HTML report: axes, ticks, one polyline per series, a
// legend. No script, no fonts to fetch: the page stays one self-contained file.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/html_escape.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

struct chart_series {
    std::string name;
    std::string colour;  ///< a CSS colour of our own (never input)
    std::vector<std::pair<double, double>> points;  ///< (x, y), in data units
};

struct chart_tick {
    double at = 0;
    std::string label;
};

struct line_chart {
    std::string title;
    std::string x_label;
    std::string y_label;
    std::vector<chart_series> series;
    std::vector<chart_tick> x_ticks;  ///< empty: evenly spaced round numbers
    double width = 560;
    double height = 260;
};

/// A round step near range/5: 1, 2 or 5 times a power of ten.
[[nodiscard]] MCP_LOADTEST_DECL double nice_step(double range);

[[nodiscard]] MCP_LOADTEST_DECL std::string svg_number(double v);

[[nodiscard]] MCP_LOADTEST_DECL std::string tick_label(double v);

/// The chart as an inline <svg> element. An empty chart (no point) draws its frame and says so.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_svg(const line_chart& c);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/report/impl/svg_chart.ipp>
#endif
