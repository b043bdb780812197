// render cases of tests/test_reports.cpp (owner: see docs/reports.md): the forms people read
// (grades, Markdown, HTML, terminal progress and summary), golden files in tests/golden/, and
// the HTML of a real run that tests/check_html_in_chromium.py renders in headless Chromium.
#pragma once

#include <mcp_loadtest/detectors/cross_talk.hpp>
#include <mcp_loadtest/detectors/deadlock_probe.hpp>
#include <mcp_loadtest/detectors/race_check.hpp>
#include <mcp_loadtest/detectors/payload_sweep.hpp>
#include <mcp_loadtest/report/grade.hpp>
#include <mcp_loadtest/report/html.hpp>
#include <mcp_loadtest/report/markdown.hpp>
#include <mcp_loadtest/report/terminal.hpp>
#include <mcp_loadtest/run.hpp>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef MCP_LOADTEST_TEST_GOLDEN
#define MCP_LOADTEST_TEST_GOLDEN MCP_LOADTEST_TEST_FIXTURES "/../tests/golden"
#endif

namespace render_cases {

/// Records fixed latencies (ms) into a call_stats with the given outcomes.
inline void record(mlt::call_stats& s, const std::vector<double>& ms, mlt::outcome o = mlt::outcome::ok) {
    for (const double v : ms) {
        s.outcomes.add(o);
        s.histogram.record(std::chrono::nanoseconds(static_cast<std::int64_t>(v * 1e6)));
    }
}

/// A report with fixed numbers only (no clock, no process, no randomness): two tools, a step,
/// a slow tail, a threshold violation, a leak, hostile text. The golden files pin its forms.
inline mlt::load_report synthetic_report() {
    mlt::load_report r;
    r.run_id = "golden-0001";
    r.started_at = "2026-01-02T03:04:05Z";
    r.started_at_unix_ns = 1767323045000000000;
    r.duration_s = 10;
    r.workload = "open";
    r.workload_parameters = {{"rate", 100}, {"duration_s", 10}};
    r.server = "python3 fixtures/echo_server.py --name 'x|y'";
    r.transport = "stdio";
    r.protocol_era = "legacy";
    r.protocol_version = "2025-06-18";
    r.server_name = "echo <b>server</b> | one";
    r.server_version = "1.2.3";
    r.seed = 42;
    r.iterations_started = 1000;
    r.iterations_completed = 1000;
    for (int second = 0; second < 10; ++second) {
        mlt::call_stats overall_s, echo_s, search_s;
        std::vector<double> echo, search, search_failed;
        for (int i = 0; i < 70; ++i) echo.push_back(1.0 + (i % 10) * 0.5 + second * 0.01);
        for (int i = 0; i < 29; ++i) search.push_back(20.0 + i * 2.0);
        if (second == 7) search_failed.push_back(180.0);  // the tail
        else search.push_back(80.0);
        record(echo_s, echo);
        record(search_s, search);
        record(search_s, search_failed, mlt::outcome::tool_error);
        overall_s.merge(echo_s);
        overall_s.merge(search_s);
        r.per_tool["echo"].merge(echo_s);
        r.per_tool["search | <all>"].merge(search_s);
        r.overall.merge(overall_s);
        r.timeline.push_back({static_cast<double>(second), 100, search_failed.size(), 3});
        r.intervals.push_back({static_cast<double>(second), 1.0, "", overall_s.histogram.count(),
                               mlt::to_hdr_base64(overall_s.histogram)});
        r.intervals.push_back({static_cast<double>(second), 1.0, "echo", echo_s.histogram.count(),
                               mlt::to_hdr_base64(echo_s.histogram)});
    }
    record(r.per_step["login"], {5, 6, 7, 8, 9});
    r.per_step["login"].finalize();
    r.per_method["tools/call"] = r.overall;
    r.throughput_rps = 100;
    r.protocol_violations = 1;
    r.protocol_violation_samples = {"reply to id 7 had no \"jsonrpc\" | <script>alert(1)</script>\nsecond line"};
    r.failures.add_check("status is ok", "got `error` | *bold*", 17);
    mlt::server_process_report p;
    p.session = 0;
    p.pid = 4242;
    for (int i = 0; i <= 10; ++i)
        p.samples.push_back({std::chrono::seconds(i), 4242, 40.0 + 5.0 * i, 2.5, static_cast<std::uint32_t>(12),
                             static_cast<std::uint32_t>(i < 5 ? 3 : 4)});
    p.stats = {90, 90, 2.5, 12, 12, 4, 11};
    p.tree_stats = p.stats;
    mlt::leak_analysis rss;
    rss.resource = "rss_mb";
    rss.verdict = mlt::leak_verdict::leak;
    rss.fit = {5.0, 40.0, 1.0, 11};
    rss.predicted_growth = 50;
    rss.threshold = 20;
    rss.explanation = "RSS grew 5 MB/s for 10 s (50 MB, 20 MB allowed): a leak.";
    mlt::leak_analysis fds;
    fds.resource = "open_fds";
    fds.verdict = mlt::leak_verdict::no_leak;
    fds.threshold = 20;
    fds.explanation = "flat at 12";
    p.leaks = {rss, fds};
    r.processes.push_back(p);
    r.violations.push_back({"p99", "<= 50 ms", "80.1 ms", "1 call in 100 waits longer than the objective allows."});
    r.violations.push_back({"server[0]:rss_growth_mb", "<= 20 MB", "50 MB", "The server's memory grows under load."});
    r.passed = false;
    return r;
}

/// The JSON's shape: every value replaced by its type, arrays by the shape of their first element.
inline mlt::json json_shape(const mlt::json& j) {
    if (j.is_object()) {
        mlt::json out = mlt::json::object();
        for (const auto& [k, v] : j.items()) out[k] = json_shape(v);
        return out;
    }
    if (j.is_array()) return j.empty() ? mlt::json::array() : mlt::json::array({json_shape(j.front())});
    if (j.is_string()) return "string";
    if (j.is_boolean()) return "boolean";
    if (j.is_number_integer()) return "integer";
    if (j.is_number()) return "number";
    return "null";
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Compares `actual` with tests/golden/<name>; MCP_LOADTEST_UPDATE_GOLDEN=1 rewrites the file.
inline void check_golden(const std::string& name, const std::string& actual) {
    const std::filesystem::path golden = std::filesystem::path(MCP_LOADTEST_TEST_GOLDEN) / name;
    const char* update = std::getenv("MCP_LOADTEST_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
        std::ofstream(golden, std::ios::binary) << actual;
        MESSAGE("rewrote " << golden.string());
        return;
    }
    REQUIRE_MESSAGE(std::filesystem::exists(golden), golden.string() << " is missing: create it with "
                                                                         "MCP_LOADTEST_UPDATE_GOLDEN=1 ctest -R golden");
    const std::string expected = read_text(golden);
    if (expected == actual) return;
    const auto out_dir = std::filesystem::temp_directory_path() / "mcp-loadtest-golden-actual";
    std::filesystem::create_directories(out_dir);
    std::ofstream(out_dir / name, std::ios::binary) << actual;
    std::istringstream e(expected), a(actual);
    std::string el, al;
    std::size_t line = 0;
    while (true) {
        ++line;
        const bool more_e = static_cast<bool>(std::getline(e, el)), more_a = static_cast<bool>(std::getline(a, al));
        if (!more_e && !more_a) break;
        if (!more_e || !more_a || el != al) break;
    }
    FAIL_CHECK(golden.string() << " differs from the output at line " << line << ":\n  golden: " << el
                               << "\n  actual: " << al << "\nThe whole output is in " << (out_dir / name).string()
                               << " (diff -u " << golden.string() << " " << (out_dir / name).string()
                               << "). If the change is intended, refresh the golden files with "
                                  "MCP_LOADTEST_UPDATE_GOLDEN=1 ctest -R golden and commit them.");
}

/// Captures this process's stderr (fd 2) into a file while alive.
class stderr_capture {
public:
    explicit stderr_capture(std::filesystem::path file) : file_(std::move(file)) {
        std::fflush(stderr);
        saved_ = ::dup(STDERR_FILENO);
        const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, STDERR_FILENO);
        ::close(fd);
    }
    stderr_capture(const stderr_capture&) = delete;
    stderr_capture& operator=(const stderr_capture&) = delete;
    ~stderr_capture() { restore(); }
    std::string restore() {
        if (saved_ >= 0) {
            std::fflush(stderr);
            ::dup2(saved_, STDERR_FILENO);
            ::close(saved_);
            saved_ = -1;
        }
        return read_text(file_);
    }

private:
    std::filesystem::path file_;
    int saved_ = -1;
};

inline std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (l.rfind(prefix, 0) == 0) out.push_back(l);
    return out;
}

/// The body of a markdown table row split on unescaped '|'.
inline std::size_t unescaped_pipes(const std::string& line) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
    return n;
}

inline mlt::run_options quiet_options() {
    mlt::run_options o;
    o.sample_interval = 100ms;
    o.call.timeout = 5s;
    o.run_directory.enabled = false;
    return o;
}

}  // namespace render_cases

// ---- grades --------------------------------------------------------------------------

TEST_CASE("render: grades follow their written rules on fixed inputs") {
    using render_cases::record;
    mlt::load_report r;
    CHECK(mlt::grade_latency(r).letter == '-');
    CHECK(mlt::grade_errors(r).letter == '-');
    CHECK(mlt::grade_resources(r).letter == '-');

    // p99 below 10 ms: the tail ratio is not graded (scheduling noise).
    std::vector<double> fast(100, 0.2);
    fast.back() = 5;
    record(r.overall, fast);
    r.overall.finalize();
    CHECK(mlt::grade_latency(r).letter == 'A');
    CHECK(mlt::grade_errors(r).letter == 'A');

    // p99 180 ms (B by the p99) with a p50 of 20 ms: ratio 9, C wins.
    mlt::load_report tail;
    std::vector<double> v(97, 20.0);
    v.insert(v.end(), {180, 180, 180});
    record(tail.overall, v);
    tail.overall.finalize();
    const auto g = mlt::grade_latency(tail);
    CHECK(g.letter == 'C');
    CHECK(g.inputs.at("tail_ratio").get<double>() == doctest::Approx(9).epsilon(0.01));
    CHECK(g.meaning.find("slow tail") != std::string::npos);
    tail.violations.push_back({"tool:echo:p99", "<= 100 ms", "180 ms", ""});
    CHECK(mlt::grade_latency(tail).letter == 'F');

    // Errors: one hang is D whatever the rate; a crash is F; 0.05 % tool errors is B.
    mlt::load_report errors;
    record(errors.overall, std::vector<double>(1999, 1.0));
    record(errors.overall, {1.0}, mlt::outcome::tool_error);
    CHECK(mlt::grade_errors(errors).letter == 'B');
    record(errors.overall, {1.0}, mlt::outcome::hang);
    CHECK(mlt::grade_errors(errors).letter == 'D');
    record(errors.overall, {1.0}, mlt::outcome::crash);
    CHECK(mlt::grade_errors(errors).letter == 'F');

    // Resources: share of the allowance over the series judged; a leak verdict is F; a series too
    // short or too noisy to judge is not graded, and said so.
    const auto resources = [](std::vector<std::pair<mlt::leak_verdict, double>> series) {
        mlt::load_report x;
        mlt::server_process_report p;
        for (const auto& [verdict, growth] : series) {
            mlt::leak_analysis l;
            l.resource = "rss_mb";
            l.verdict = verdict;
            l.predicted_growth = growth;
            l.threshold = 50;
            l.explanation = "only 3 samples after the warm-up";
            p.leaks.push_back(l);
        }
        x.processes.push_back(p);
        return mlt::grade_resources(x);
    };
    using lv = mlt::leak_verdict;
    CHECK(resources({{lv::no_leak, 5}}).letter == 'A');
    CHECK(resources({{lv::no_leak, 20}}).letter == 'B');
    CHECK(resources({{lv::no_leak, 40}}).letter == 'C');
    CHECK(resources({{lv::no_leak, 80}}).letter == 'D');
    CHECK(resources({{lv::leak, 80}}).letter == 'F');
    // Too short to judge: not a C next to two A's, but "not graded", and why.
    const auto short_run = resources({{lv::insufficient_data, 0}, {lv::indeterminate, 30}});
    CHECK(short_run.letter == '-');
    CHECK(short_run.meaning.find("not graded") != std::string::npos);
    CHECK(short_run.meaning.find("2 of 2 series") != std::string::npos);
    CHECK(short_run.meaning.find("only 3 samples after the warm-up") != std::string::npos);
    CHECK(short_run.inputs.at("not_judged") == 2);
    // Graded by what was judged, the rest named.
    const auto partly = resources({{lv::no_leak, 5}, {lv::insufficient_data, 0}, {lv::indeterminate, 45}});
    CHECK(partly.letter == 'A');
    CHECK(partly.meaning.find("Not judged: 2 of 3 series") != std::string::npos);
}

// ---- golden files ----------------------------------------------------------------------

TEST_CASE("golden: the summary, the Markdown and the JSON shape of a fixed report") {
    const auto r = render_cases::synthetic_report();
    render_cases::check_golden("summary.txt", mlt::terminal_summary(r));
    render_cases::check_golden("report.md", mlt::to_markdown(r));
    render_cases::check_golden("report.shape.json", render_cases::json_shape(mlt::json(r)).dump(2) + "\n");
    mlt::json grades = mlt::grade_report(r);
    render_cases::check_golden("grades.json", grades.dump(2) + "\n");
}

// ---- Markdown and HTML of hostile input --------------------------------------------------

TEST_CASE("render: Markdown and HTML escape what the server chose (names, samples, messages)") {
    auto r = render_cases::synthetic_report();
    const std::string md = mlt::to_markdown(r);
    CHECK(md.rfind("## ❌ FAILED", 0) == 0);  // the verdict first
    CHECK(md.find("<script>") == std::string::npos);
    CHECK(md.find("<b>") == std::string::npos);
    // Every row of the latency table has the header's 9 unescaped pipes, whatever the tool's name.
    std::istringstream in(md);
    bool in_latency = false;
    std::size_t rows = 0;
    for (std::string line; std::getline(in, line);) {
        if (line == "### Latency") in_latency = true;
        else if (line.rfind("###", 0) == 0) in_latency = false;
        if (in_latency && line.rfind("|", 0) == 0) {
            CHECK_MESSAGE(render_cases::unescaped_pipes(line) == 9, line);
            ++rows;
        }
    }
    CHECK(rows == 2 + 1 + 2 + 1);  // header, rule, overall, two tools, one step
    CHECK(md.find("search \\| &lt;all&gt;") != std::string::npos);
    CHECK(md.find("server\\[0\\]:rss\\_growth\\_mb") != std::string::npos);
    CHECK(md.find("| p99 | &lt;= 50 ms | 80.1 ms |") != std::string::npos);  // expected vs actual, escaped

    const std::string html = mlt::to_html(r);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("echo &lt;b&gt;server&lt;/b&gt; | one") != std::string::npos);
    // Self-contained: no fetch of anything (the SVG namespace is a name, not a fetch).
    for (const char* outside : {"<link", "<img", "@import", "url(", "src=", "https://"})
        CHECK_MESSAGE(html.find(outside) == std::string::npos, outside);
    std::size_t at = 0, http = 0;
    while ((at = html.find("http://", at)) != std::string::npos) {
        CHECK(html.compare(at, 26, "http://www.w3.org/2000/svg") == 0);
        ++at;
        ++http;
    }
    CHECK(http >= 3);  // percentile, latency and throughput charts at least
    // The numbers charts draw are in the DOM as text too.
    CHECK(html.find(mlt::detail::format_ms(r.overall.latency.p99)) != std::string::npos);
    CHECK(html.find("<svg") != std::string::npos);
}

// ---- detector reports --------------------------------------------------------------------

MCP_LOADTEST_CASE("render: a real cross-talk report as Markdown and HTML, verdict and evidence") {
    auto buggy = fixture("crosstalk_server.py");
    auto report = co_await mlt::cross_talk_check(
        buggy, "lookup_user", [](std::size_t i) { return mlt::args("user", "user-" + std::to_string(i)); },
        {.calls = 8});
    REQUIRE_FALSE(report.passed());
    const std::string md = mlt::to_markdown(report, "cross-talk check of lookup_user");
    CHECK(md.rfind("## ❌ FAILED: cross-talk check of lookup\\_user", 0) == 0);
    CHECK(md.find(mlt::detail::markdown_cell(report.verdict_sentence(), 3000)) != std::string::npos);
    CHECK(md.find("### mismatches") != std::string::npos);
    CHECK(md.find("| verdict | cross\\_talk |") != std::string::npos);
    const std::string html = mlt::to_html(report, "cross-talk check of lookup_user");
    CHECK(html.find("FAILED: cross-talk check of lookup_user") != std::string::npos);
    CHECK(html.find(mlt::detail::html_escape(report.verdict_sentence())) != std::string::npos);
    CHECK(html.find("<h2>mismatches</h2>") != std::string::npos);
}

TEST_CASE("render: a payload sweep report lists every probe, long lists cut with a count") {
    mlt::payload_sweep_report r;
    r.verdict = mlt::payload_verdict::limit_found;
    r.tool = "echo";
    r.argument = "message";
    r.transport = "stdio";
    r.last_good_bytes = 65536;
    r.first_bad_bytes = 131072;
    r.failure_message = "reply | truncated\nat 65536";
    for (std::size_t i = 0; i < 60; ++i) {
        mlt::payload_probe p;
        p.bytes = 1024 * (i + 1);
        p.good = i < 59;
        r.probes.push_back(p);
    }
    const std::string md = mlt::to_markdown(r, "payload sweep of echo");
    CHECK(md.rfind("## ❌ FAILED", 0) == 0);
    CHECK(md.find("### probes") != std::string::npos);
    CHECK(md.find("and 10 more") != std::string::npos);
    CHECK(md.find("reply \\| truncated at 65536") != std::string::npos);
    const std::string html = mlt::to_html(r);
    CHECK(html.find("FAILED: detector report") != std::string::npos);
    CHECK(html.find("<td>61440</td>") == std::string::npos);  // the 60th probe is cut, the 50th shown
    CHECK(html.find("<td>51200</td>") != std::string::npos);
}

// ---- terminal ------------------------------------------------------------------------

TEST_CASE("render: the progress rule: explicit wins, then MCP_LOADTEST_PROGRESS, then tty outside CI") {
    using mlt::progress_mode;
    using mlt::detail::progress_enabled;
    CHECK(progress_enabled(progress_mode::on, false, "0", "true"));
    CHECK_FALSE(progress_enabled(progress_mode::off, true, "1", nullptr));
    CHECK(progress_enabled(progress_mode::automatic, false, "1", "true"));
    CHECK_FALSE(progress_enabled(progress_mode::automatic, true, "0", nullptr));
    CHECK(progress_enabled(progress_mode::automatic, true, nullptr, nullptr));
    CHECK_FALSE(progress_enabled(progress_mode::automatic, true, nullptr, "true"));
    CHECK(progress_enabled(progress_mode::automatic, true, nullptr, "false"));
    CHECK_FALSE(progress_enabled(progress_mode::automatic, false, nullptr, nullptr));
    const std::string line = mlt::progress_line(3.0, 10.0, 250.5, 751, 4200us, 2, 0);
    CHECK(line == "mcp-loadtest   3.0 s / 10.0 s |   250.5 calls/s | 751 calls | p99 4.2 ms | 2 errors | 0 dropped");
}

MCP_LOADTEST_CASE("render: live progress prints a line a second when on, nothing when off") {
    auto server = fixture("echo_server.py");
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 2500ms};
    auto options = render_cases::quiet_options();
    options.progress = mlt::progress_mode::on;
    const auto file = std::filesystem::temp_directory_path() / ("mcp-loadtest-progress-" + std::to_string(::getpid()));
    std::string captured;
    mlt::load_report report;
    {
        render_cases::stderr_capture capture(file);
        report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
        captured = capture.restore();
    }
    const auto lines = render_cases::lines_starting(captured, "mcp-loadtest ");
    INFO(captured);
    CHECK(lines.size() >= 1);
    CHECK(lines.size() <= 4);  // once a second over 2.5 s, not once a call
    for (const auto& l : lines) {
        CHECK(l.find("/ 2.5 s") != std::string::npos);
        CHECK(l.find("calls/s") != std::string::npos);
        CHECK(l.find('\r') == std::string::npos);  // not a terminal: a line per update
    }
    const std::string summary = mlt::terminal_summary(report);
    CHECK(summary.rfind(report.summary(), 0) == 0);  // the summary's lines unchanged, grades after
    CHECK(summary.find("grades: latency ") != std::string::npos);

    options.progress = mlt::progress_mode::off;
    const mlt::workload short_load = mlt::open_load{.rate = 100, .duration = 1200ms};
    {
        render_cases::stderr_capture capture(file);
        report = co_await mlt::run(server, short_load, calls, mlt::thresholds{}, options);
        captured = capture.restore();
    }
    CHECK(render_cases::lines_starting(captured, "mcp-loadtest ").empty());
    std::filesystem::remove(file);
}

// ---- HTML of a real run, for tests/check_html_in_chromium.py ------------------------------

MCP_LOADTEST_CASE("render: the HTML of a real run is self-contained and carries its numbers") {
    auto server = fixture("echo_server.py");
    const mlt::mix calls{{"echo", {{"message", "<b>AAPL</b>"}}, 1.0}, {"add", {{"a", 1}, {"b", 2}}, 0.3},
                         {"fail", mlt::json::object(), 0.05}};
    const mlt::workload load = mlt::open_load{.rate = 150, .duration = 2s};
    auto options = render_cases::quiet_options();
    options.progress = mlt::progress_mode::off;
    const mlt::thresholds slo{.error_rate = 0.0};  // the fail tool misses it: a violation to show
    auto report = co_await mlt::run(server, load, calls, slo, options);
    REQUIRE(report.overall.calls() > 100);
    REQUIRE(report.per_tool.count("fail"));
    const std::string html = mlt::to_html(report);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("https://") == std::string::npos);
    // The numbers a reader looks for, as the page prints them.
    std::vector<std::string> numbers{mlt::detail::format_ms(report.overall.latency.p50),
                                     mlt::detail::format_ms(report.overall.latency.p99),
                                     std::to_string(report.overall.calls()),
                                     std::to_string(report.per_tool.at("echo").calls()),
                                     std::to_string(report.per_tool.at("fail").calls()),
                                     report.violations.empty() ? std::string("FAILED") : report.violations.front().metric,
                                     "Latency by percentile", "Throughput over time", "RSS over time"};
    for (const auto& n : numbers) CHECK_MESSAGE(html.find(n) != std::string::npos, n);
    // Written for the Chromium check (tests/check_html_in_chromium.py sets the directory).
    const char* dir = std::getenv("MCP_LOADTEST_HTML_CHECK_DIR");
    const auto out = dir && *dir ? std::filesystem::path(dir)
                                 : std::filesystem::temp_directory_path() / ("mcp-loadtest-html-" + std::to_string(::getpid()));
    std::filesystem::create_directories(out);
    std::ofstream(out / "report.html", std::ios::binary) << html;
    std::ofstream(out / "report.expect.json") << mlt::json{{"numbers", numbers}}.dump(2);
    MESSAGE("HTML report: " << (out / "report.html").string() << " (" << html.size() << " bytes)");
    if (!(dir && *dir)) std::filesystem::remove_all(out);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

TEST_CASE("render: the deadlock probe's and the race check's reports have the detector forms") {
    static_assert(mlt::detector_report<mlt::deadlock_report>);
    static_assert(mlt::detector_report<mlt::race_report>);
    mlt::deadlock_report probe;
    probe.verdict = mlt::probe_verdict::critical;
    probe.tool = "get_market_data";
    probe.deadlocked = 20;
    probe.explanation = "DEADLOCK: 20 of 20 concurrent 'get_market_data' calls never answered";
    const auto md = mlt::to_markdown(probe, "deadlock probe");
    INFO(md);
    CHECK(md.find("20 of 20 concurrent") != std::string::npos);
    CHECK(mlt::to_html(probe, "deadlock probe").find("20 of 20 concurrent") != std::string::npos);

    mlt::race_report race;
    race.tool = "get_config";
    race.calls = 10;
    race.groups = {{"{\"v\":1}", 7, {1, 2}, "{\"v\":1}"}, {"{\"v\":2}", 3, {3}, "{\"v\":2}"}};
    CHECK_FALSE(race.passed());
    CHECK(mlt::to_markdown(race, "race check").find("2 different responses") != std::string::npos);
    race.groups.resize(1);
    CHECK(race.passed());
}
