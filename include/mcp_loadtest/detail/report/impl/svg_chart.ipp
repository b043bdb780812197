// Definitions of detail/report/svg_chart.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/report/svg_chart.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL double nice_step(double range) {
    if (!(range > 0)) return 1;
    const double raw = range / 5;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / power;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

MCP_LOADTEST_DECL std::string svg_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

MCP_LOADTEST_DECL std::string tick_label(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", std::abs(v) < 1e-12 ? 0.0 : v);
    return buf;
}

MCP_LOADTEST_DECL std::string to_svg(const line_chart& c) {
    const double left = 64, right = 30, top = 34, bottom = 44;
    const double plot_w = c.width - left - right, plot_h = c.height - top - bottom;
    double x_min = 0, x_max = 0, y_max = 0;
    bool any = false;
    for (const auto& s : c.series)
        for (const auto& [x, y] : s.points) {
            if (!std::isfinite(x) || !std::isfinite(y)) continue;
            if (!any) x_min = x_max = x;
            x_min = std::min(x_min, x);
            x_max = std::max(x_max, x);
            y_max = std::max(y_max, y);
            any = true;
        }
    for (const auto& t : c.x_ticks) {
        if (!any) x_min = x_max = t.at;
        x_min = std::min(x_min, t.at);
        x_max = std::max(x_max, t.at);
        any = true;
    }
    if (!(x_max > x_min)) x_max = x_min + 1;
    const double y_step = nice_step(y_max > 0 ? y_max : 1);
    const double y_top = y_max > 0 ? std::ceil(y_max / y_step) * y_step : 5 * y_step;
    const auto px = [&](double x) { return left + (x - x_min) / (x_max - x_min) * plot_w; };
    const auto py = [&](double y) { return top + plot_h - (y / y_top) * plot_h; };

    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + svg_number(c.width) +
                    "\" height=\"" + svg_number(c.height) + "\" viewBox=\"0 0 " + svg_number(c.width) + " " +
                    svg_number(c.height) + "\" role=\"img\" aria-label=\"" + html_escape(c.title) + "\">\n";
    s += "<title>" + html_escape(c.title) + "</title>\n";
    s += "<rect x=\"" + svg_number(left) + "\" y=\"" + svg_number(top) + "\" width=\"" + svg_number(plot_w) +
         "\" height=\"" + svg_number(plot_h) + "\" fill=\"#fafbfc\" stroke=\"#c8ccd0\"/>\n";
    // y grid and labels
    for (double y = 0; y <= y_top + y_step / 2; y += y_step) {
        const std::string yy = svg_number(py(y));
        s += "<line x1=\"" + svg_number(left) + "\" x2=\"" + svg_number(left + plot_w) + "\" y1=\"" + yy + "\" y2=\"" +
             yy + "\" stroke=\"#e3e6e8\"/>";
        s += "<text x=\"" + svg_number(left - 6) + "\" y=\"" + svg_number(py(y) + 4) +
             "\" text-anchor=\"end\" font-size=\"11\" fill=\"#444\">" + tick_label(y) + "</text>\n";
    }
    // x ticks
    std::vector<chart_tick> ticks = c.x_ticks;
    if (ticks.empty()) {
        const double step = nice_step(x_max - x_min);
        for (double x = std::ceil(x_min / step) * step; x <= x_max + step / 1000; x += step) ticks.push_back({x, tick_label(x)});
    }
    for (const auto& t : ticks) {
        const std::string xx = svg_number(px(t.at));
        s += "<line x1=\"" + xx + "\" x2=\"" + xx + "\" y1=\"" + svg_number(top) + "\" y2=\"" +
             svg_number(top + plot_h) + "\" stroke=\"#eef0f2\"/>";
        s += "<text x=\"" + xx + "\" y=\"" + svg_number(top + plot_h + 15) +
             "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#444\">" + html_escape(t.label) + "</text>\n";
    }
    s += "<text x=\"" + svg_number(left + plot_w / 2) + "\" y=\"" + svg_number(c.height - 6) +
         "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#222\">" + html_escape(c.x_label) + "</text>\n";
    s += "<text transform=\"translate(14 " + svg_number(top + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#222\">" + html_escape(c.y_label) + "</text>\n";
    // series and legend
    double legend_x = left;
    bool drew = false;
    for (const auto& series : c.series) {
        std::string points;
        std::size_t n = 0;
        for (const auto& [x, y] : series.points) {
            if (!std::isfinite(x) || !std::isfinite(y)) continue;
            points += svg_number(px(x)) + "," + svg_number(py(y)) + " ";
            ++n;
        }
        if (n == 0) continue;
        drew = true;
        if (n == 1) {
            s += "<circle cx=\"" + svg_number(px(series.points.front().first)) + "\" cy=\"" +
                 svg_number(py(series.points.front().second)) + "\" r=\"3\" fill=\"" + series.colour + "\"/>\n";
        } else {
            s += "<polyline fill=\"none\" stroke=\"" + series.colour + "\" stroke-width=\"2\" points=\"" + points +
                 "\"/>\n";
        }
        s += "<rect x=\"" + svg_number(legend_x) + "\" y=\"10\" width=\"12\" height=\"12\" fill=\"" + series.colour +
             "\"/><text x=\"" + svg_number(legend_x + 16) + "\" y=\"20\" font-size=\"12\" fill=\"#222\">" +
             html_escape(series.name.substr(0, 40)) + "</text>\n";
        legend_x += 28 + 7.0 * static_cast<double>(std::min<std::size_t>(series.name.size(), 40));
    }
    if (!drew)
        s += "<text x=\"" + svg_number(left + plot_w / 2) + "\" y=\"" + svg_number(top + plot_h / 2) +
             "\" text-anchor=\"middle\" font-size=\"13\" fill=\"#888\">no data</text>\n";
    s += "</svg>\n";
    return s;
}

}  // namespace mcp_loadtest::detail
