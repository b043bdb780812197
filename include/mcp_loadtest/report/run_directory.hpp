// A run directory: one per run() inside an MCP_LOADTEST_CASE (or wherever a
// root is given), holding everything a person needs after the test ended:
//
//     <root>/<case-slug>/<UTC time>[-N]/report.json, report.md, report.html,
//                                        latency.hlog, trace.jsonl, stderr-<session>.log
//     <root>/<case-slug>/latest -> the newest of them
//
// <root>: run_directory_options::root, else $MCP_LOADTEST_RUN_ROOT, else
// ./mcp-loadtest-runs. Reports are written atomically (temporary file + rename);
// a failure to write never loses the measurement: run() still returns its report
// and says on stderr what went wrong (last_run_directory() has it too).
//
//     auto report = co_await mlt::run(server, load, calls);       // inside a case: written
//     mlt::write_run_directory(detector_report);                  // any report, by hand
#pragma once

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/atomic_file.hpp>
#include <mcp_loadtest/detail/current_case.hpp>
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
/// else ./mcp-loadtest-runs (relative to the current directory).
[[nodiscard]] inline std::filesystem::path run_root(const std::filesystem::path& root = {}) {
    if (!root.empty()) return root;
    if (const char* env = std::getenv("MCP_LOADTEST_RUN_ROOT"); env && *env) return env;
    return "mcp-loadtest-runs";
}

namespace detail {

inline bool run_directories_switched_off() {
    const char* env = std::getenv("MCP_LOADTEST_RUN_DIRECTORY");
    if (!env) return false;
    const std::string v = env;
    return v == "off" || v == "0" || v == "false" || v == "no";
}

inline std::string utc_stamp(std::chrono::system_clock::time_point t) {
    const std::time_t s = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    ::gmtime_r(&s, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

/// A run directory's name as (time stamp, counter), for ordering; nullopt: not one.
inline std::optional<std::pair<std::string, long>> run_directory_order(const std::string& name) {
    if (name.size() < 16 || name[8] != 'T' || name[15] != 'Z') return std::nullopt;
    long counter = 1;
    if (name.size() > 16) {
        if (name[16] != '-') return std::nullopt;
        counter = std::strtol(name.c_str() + 17, nullptr, 10);
    }
    return std::pair{name.substr(0, 16), counter};
}

inline void put_text(const std::filesystem::path& dir, const char* file, const std::string& text,
                     std::string& errors) {
    try {
        write_file_atomically(dir / file, text);
    } catch (const std::exception& e) {
        if (!errors.empty()) errors += "; ";
        errors += std::string(file) + ": " + e.what();
    }
}

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

inline run_directory_result& last_run_directory_slot() {
    thread_local run_directory_result last;
    return last;
}

inline void say_run_directory_problem(const run_directory_result& r) {
    const std::string what = r.path.empty() ? std::string("no run directory was written")
                                            : "the run directory '" + r.path.string() + "' is incomplete";
    std::fprintf(stderr,
                 "mcp-loadtest: %s: %s. The report itself is unaffected. Set $MCP_LOADTEST_RUN_ROOT (or "
                 "run_options.run_directory.root) to a writable directory, or turn run directories off "
                 "(run_directory.enabled = false, $MCP_LOADTEST_RUN_DIRECTORY=off).\n",
                 what.c_str(), r.error.c_str());
}

}  // namespace detail

/// Creates a new, empty directory <root>/<slug of name>/<UTC time>[-N]/ and returns
/// it. Several runs within one second get -2, -3, ... (never an existing name, and
/// always after the newest one of that second).
inline std::filesystem::path create_run_directory(const std::filesystem::path& root, std::string_view name) {
    namespace fs = std::filesystem;
    const fs::path parent = root / detail::slugify(name);
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec && !fs::is_directory(parent))
        throw std::runtime_error("cannot create '" + parent.string() + "': " + ec.message());
    const std::string stamp = detail::utc_stamp(std::chrono::system_clock::now());
    // Past the newest of this second (older ones may have been pruned): names keep their order.
    long first = 1;
    for (const auto& entry : fs::directory_iterator(parent, ec))
        if (auto order = detail::run_directory_order(entry.path().filename().string()); order && order->first == stamp)
            first = std::max(first, order->second + 1);
    for (long n = first; n <= first + 1000; ++n) {
        const fs::path dir = parent / (n == 1 ? stamp : stamp + "-" + std::to_string(n));
        if (fs::create_directory(dir, ec)) return dir;
        if (ec) throw std::runtime_error("cannot create '" + dir.string() + "': " + ec.message());
    }
    throw std::runtime_error("more than 1000 run directories for '" + parent.string() + "' in one second");
}

/// Points <case dir>/latest at `dir`, then removes the oldest run directories of
/// the case beyond `keep` (0: keep all).
inline void publish_run_directory(const std::filesystem::path& dir, std::size_t keep) {
    namespace fs = std::filesystem;
    const fs::path parent = dir.parent_path();
    detail::replace_symlink(parent / "latest", dir.filename());
    if (keep == 0) return;
    std::vector<std::pair<std::pair<std::string, long>, fs::path>> runs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        if (entry.is_symlink(ec) || !entry.is_directory(ec)) continue;
        if (auto order = detail::run_directory_order(entry.path().filename().string()))
            runs.emplace_back(std::move(*order), entry.path());
    }
    if (runs.size() <= keep) return;
    std::sort(runs.begin(), runs.end());
    for (std::size_t i = 0; i + keep < runs.size(); ++i)
        if (runs[i].second.filename() != dir.filename()) fs::remove_all(runs[i].second, ec);
}

/// report.json, report.md, report.html and latency.hlog into `dir`, each atomically.
/// Returns what could not be written (empty: all of it).
inline std::string write_report_files(const std::filesystem::path& dir, const load_report& report) {
    std::string errors;
    detail::put_rendered(dir, "report.json", [&] { return json(report).dump(2) + "\n"; }, errors);
    detail::put_rendered(dir, "report.md", [&] { return to_markdown(report); }, errors);
    detail::put_rendered(dir, "report.html", [&] { return to_html(report); }, errors);
    detail::put_rendered(dir, "latency.hlog", [&] { return to_hlog(report); }, errors);
    return errors;
}

/// The run directory of the last run() (or write_run_directory) on this thread.
[[nodiscard]] inline const run_directory_result& last_run_directory() { return detail::last_run_directory_slot(); }

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
    static std::optional<run_directory_recorder> open(run_options& options, any_server& server) {
        const auto& o = options.run_directory;
        const auto* current = current_case();
        if (!o.enabled || run_directories_switched_off() || (o.root.empty() && !current)) return std::nullopt;
        run_directory_recorder r;
        r.keep_ = o.keep;
        const std::string name = !o.name.empty() ? o.name : current ? current->name : std::string("run");
        try {
            r.dir_ = create_run_directory(run_root(o.root), name);
        } catch (const std::exception& e) {
            run_directory_result failed{{}, e.what()};
            say_run_directory_problem(failed);
            last_run_directory_slot() = failed;
            return std::nullopt;
        }
        if (o.trace && options.trace_path.empty()) options.trace_path = r.dir_ / "trace.jsonl";
        if (auto* stdio = std::get_if<stdio_server>(&server);
            o.server_stderr && stdio && stdio->stderr_to == stderr_mode::inherit) {
            stdio->stderr_to = stderr_mode::tee;  // still on the test's stderr, and in the file
            stdio->stderr_path = r.dir_ / "stderr-{session}.log";
        }
        last_run_directory_slot() = run_directory_result{r.dir_, {}};
        return r;
    }

    /// The run ended with a report: write it (everything it measured, even when a
    /// server crashed), then make it the case's `latest`.
    void commit(const load_report& report) noexcept {
        run_directory_result result{dir_, {}};
        try {
            result.error = write_report_files(dir_, report);
            publish_run_directory(dir_, keep_);
        } catch (const std::exception& e) {
            result.error += (result.error.empty() ? "" : "; ") + std::string(e.what());
        }
        finish(std::move(result));
    }

    /// The run threw (a server that never started, a cancelled case): error.txt
    /// says why, beside the stderr logs and the trace that were written.
    void abandon(const std::exception_ptr& error) noexcept {
        run_directory_result result{dir_, {}};
        std::string why = "the run ended with an exception that is not a std::exception";
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            why = e.what();
        } catch (...) {
        }
        try {
            put_text(dir_, "error.txt", "run() threw, so there is no report: " + why + "\n", result.error);
            publish_run_directory(dir_, keep_);
        } catch (const std::exception& e) {
            result.error += (result.error.empty() ? "" : "; ") + std::string(e.what());
        }
        finish(std::move(result));
    }

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return dir_; }

private:
    run_directory_recorder() = default;

    static void finish(run_directory_result result) {
        if (!result.error.empty()) say_run_directory_problem(result);
        last_run_directory_slot() = std::move(result);
    }

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
