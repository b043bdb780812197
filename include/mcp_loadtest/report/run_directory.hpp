// A run directory: one per run() inside an MCP_LOADTEST_CASE (or wherever a
// root is given), holding everything a person needs after the test ended:
//
//     <root>/<case-slug>/<UTC time>[-N]/report.json, report.md, report.html,
//                                        latency.hlog, trace.jsonl, stderr-<session>.log
//     <root>/<case-slug>/latest -> the newest of them
//
// <root>: run_directory_options::root, else $MCP_LOADTEST_RUN_ROOT, else
// mcp-loadtest-runs beside the test program. Reports are written atomically (temporary file + rename);
// a failure to write never loses the measurement: run() still returns its report
// and says on stderr what went wrong (last_run_directory() has it too).
//
//     auto report = co_await mlt::run(server, load, calls);       // inside a case: written
//     mlt::write_run_directory(detector_report);                  // any report, by hand
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/atomic_file.hpp>
#include <mcp_loadtest/detail/testing/current_case.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/report/hlog.hpp>
#include <mcp_loadtest/report/html.hpp>
#include <mcp_loadtest/report/markdown.hpp>
#include <mcp_loadtest/run_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// Where a run directory went, or why it is missing or incomplete.
struct run_directory_result {
    std::filesystem::path path;  ///< the directory; empty: none was created
    std::string error;           ///< empty: every file was written
    [[nodiscard]] bool ok() const noexcept { return !path.empty() && error.empty(); }
};

/// The root of the run directories: `root` when given, else $MCP_LOADTEST_RUN_ROOT,
/// else mcp-loadtest-runs in the directory of the running program (its build tree,
/// wherever it was started from; ./mcp-loadtest-runs where the system does not say).
[[nodiscard]] MCP_LOADTEST_DECL std::filesystem::path run_root(const std::filesystem::path& root = {});

namespace detail {

MCP_LOADTEST_DECL bool run_directories_switched_off();

MCP_LOADTEST_DECL std::string utc_stamp(std::chrono::system_clock::time_point t);

/// A run directory's name as (time stamp, counter), for ordering; nullopt: not one.
MCP_LOADTEST_DECL std::optional<std::pair<std::string, long>> run_directory_order(const std::string& name);

MCP_LOADTEST_DECL void put_text(const std::filesystem::path& dir, const char* file, const std::string& text,
                                std::string& errors);

/// Renders with `render` and writes the file; a renderer's failure costs that file only.
template <class Render>
void put_rendered(const std::filesystem::path& dir, const char* file, Render render, std::string& errors) {
    std::string text;
    try {
        text = render();
    } catch (const std::exception& e) {
        if (!errors.empty()) errors += "; ";
        errors += std::string(file) + ": could not be rendered: " + e.what();
        return;
    }
    put_text(dir, file, text, errors);
}

MCP_LOADTEST_DECL run_directory_result& last_run_directory_slot();

MCP_LOADTEST_DECL void say_run_directory_problem(const run_directory_result& r);

}  // namespace detail

/// Creates a new, empty directory <root>/<slug of name>/<UTC time>[-N]/ and returns
/// it. Several runs within one second get -2, -3, ... (never an existing name, and
/// always after the newest one of that second).
MCP_LOADTEST_DECL std::filesystem::path create_run_directory(const std::filesystem::path& root, std::string_view name);

/// Points <case dir>/latest at `dir`, then removes the oldest run directories of
/// the case beyond `keep` (0: keep all).
MCP_LOADTEST_DECL void publish_run_directory(const std::filesystem::path& dir, std::size_t keep);

/// report.json, report.md, report.html and latency.hlog into `dir`, each atomically.
/// Returns what could not be written (empty: all of it).
MCP_LOADTEST_DECL std::string write_report_files(const std::filesystem::path& dir, const load_report& report);

/// The run directory of the last run() (or write_run_directory) on this thread.
[[nodiscard]] MCP_LOADTEST_DECL const run_directory_result& last_run_directory();

/// Writes any report into a new run directory, as report.json plus report.md and
/// report.html where a Markdown / HTML form exists for it (load reports, detector
/// reports), and latency.hlog for a load_report. Named by options.name, else the
/// current case, else "run"; `latest` then names it. Written even outside a case
/// (you asked), unless options.enabled is false or $MCP_LOADTEST_RUN_DIRECTORY=off.
/// Never throws for a write failure: the result (and stderr) says what went wrong.
template <class Report>
run_directory_result write_run_directory(const Report& report, const run_directory_options& options) {
    run_directory_result result;
    if (!options.enabled || detail::run_directories_switched_off()) return result;
    const auto* current = current_case();
    const std::string name = !options.name.empty() ? options.name : current ? current->name : std::string("run");
    try {
        result.path = create_run_directory(run_root(options.root), name);
        detail::put_rendered(result.path, "report.json", [&] { return json(report).dump(2) + "\n"; }, result.error);
        if constexpr (requires { to_markdown(report, std::string_view()); })
            detail::put_rendered(result.path, "report.md", [&] { return to_markdown(report, name); }, result.error);
        else if constexpr (requires { to_markdown(report); })
            detail::put_rendered(result.path, "report.md", [&] { return to_markdown(report); }, result.error);
        if constexpr (requires { to_html(report, std::string_view()); })
            detail::put_rendered(result.path, "report.html", [&] { return to_html(report, name); }, result.error);
        else if constexpr (requires { to_html(report); })
            detail::put_rendered(result.path, "report.html", [&] { return to_html(report); }, result.error);
        if constexpr (requires { to_hlog(report); })
            detail::put_rendered(result.path, "latency.hlog", [&] { return to_hlog(report); }, result.error);
        publish_run_directory(result.path, options.keep);
    } catch (const std::exception& e) {
        if (!result.error.empty()) result.error += "; ";
        result.error += e.what();
    }
    if (!result.error.empty()) detail::say_run_directory_problem(result);
    detail::last_run_directory_slot() = result;
    return result;
}
template <class Report>
run_directory_result write_run_directory(const Report& report) {
    return write_run_directory(report, run_directory_options{});
}

namespace detail {

/// run()'s side of the run directory: decides whether the run gets one, creates it
/// before the run (the trace and the servers' stderr are written during it), and
/// writes the reports after. Never throws: a problem leaves the run as it was.
class run_directory_recorder {
public:
    /// A recorder when `options` ask for a directory (inside a case, or a root is
    /// set) and it could be created; points the trace and inherited stdio stderr at it.
    MCP_LOADTEST_DECL static std::optional<run_directory_recorder> open(run_options& options, any_server& server);

    /// The run ended with a report: write it (everything it measured, even when a
    /// server crashed), then make it the case's `latest`.
    MCP_LOADTEST_DECL void commit(const load_report& report) noexcept;

    /// The run threw (a server that never started, a cancelled case): error.txt
    /// says why, beside the stderr logs and the trace that were written.
    MCP_LOADTEST_DECL void abandon(const std::exception_ptr& error) noexcept;

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return dir_; }

private:
    run_directory_recorder() = default;

    MCP_LOADTEST_DECL static void finish(run_directory_result result);

    std::filesystem::path dir_;
    std::size_t keep_ = 10;
};

/// A job (load_job) whose report goes into a run directory when it ends.
template <class Job>
struct recorded_job {
    Job job;
    run_directory_recorder recorder;

    asio::awaitable<load_report> run() {
        std::exception_ptr error;
        load_report report;
        try {
            report = co_await job.run();
        } catch (...) {
            error = std::current_exception();
        }
        if (error) {
            recorder.abandon(error);
            std::rethrow_exception(error);
        }
        recorder.commit(report);
        co_return report;
    }
};

}  // namespace detail
}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/run_directory.ipp>
#endif
