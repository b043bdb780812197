// Definitions of report/run_directory.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/run_directory.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/os/utc_time.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::filesystem::path run_root(const std::filesystem::path& root) {
    if (!root.empty()) return root;
    if (const char* env = std::getenv("MCP_LOADTEST_RUN_ROOT"); env && *env) return env;
    // Beside the test program (in its build tree), not in the directory it was started from:
    // a test run from a repository's root leaves nothing in the repository.
    if (const auto program = detail::this_process_executable(); !program.empty())
        return program.parent_path() / "mcp-loadtest-runs";
    return "mcp-loadtest-runs";
}

namespace detail {

MCP_LOADTEST_DECL bool run_directories_switched_off() {
    const char* env = std::getenv("MCP_LOADTEST_RUN_DIRECTORY");
    if (!env) return false;
    const std::string v = env;
    return v == "off" || v == "0" || v == "false" || v == "no";
}

MCP_LOADTEST_DECL std::string utc_stamp(std::chrono::system_clock::time_point t) {
    const std::time_t s = std::chrono::system_clock::to_time_t(t);
    const std::tm tm = detail::utc_calendar(s);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

MCP_LOADTEST_DECL std::optional<std::pair<std::string, long>> run_directory_order(const std::string& name) {
    if (name.size() < 16 || name[8] != 'T' || name[15] != 'Z') return std::nullopt;
    long counter = 1;
    if (name.size() > 16) {
        if (name[16] != '-') return std::nullopt;
        counter = std::strtol(name.c_str() + 17, nullptr, 10);
    }
    return std::pair{name.substr(0, 16), counter};
}

MCP_LOADTEST_DECL void put_text(const std::filesystem::path& dir, const char* file, const std::string& text,
                                std::string& errors) {
    try {
        write_file_atomically(dir / file, text);
    } catch (const std::exception& e) {
        if (!errors.empty()) errors += "; ";
        errors += std::string(file) + ": " + e.what();
    }
}

MCP_LOADTEST_DECL run_directory_result& last_run_directory_slot() {
    thread_local run_directory_result last;
    return last;
}

MCP_LOADTEST_DECL void say_run_directory_problem(const run_directory_result& r) {
    const std::string what = r.path.empty() ? std::string("no run directory was written")
                                            : "the run directory '" + r.path.string() + "' is incomplete";
    std::fprintf(stderr,
                 "mcp-loadtest: %s: %s. The report itself is unaffected. Set $MCP_LOADTEST_RUN_ROOT (or "
                 "run_options.run_directory.root) to a writable directory, or turn run directories off "
                 "(run_directory.enabled = false, $MCP_LOADTEST_RUN_DIRECTORY=off).\n",
                 what.c_str(), r.error.c_str());
}

}  // namespace detail

MCP_LOADTEST_DECL std::filesystem::path create_run_directory(const std::filesystem::path& root, std::string_view name) {
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

MCP_LOADTEST_DECL void publish_run_directory(const std::filesystem::path& dir, std::size_t keep) {
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

MCP_LOADTEST_DECL std::string write_report_files(const std::filesystem::path& dir, const load_report& report) {
    std::string errors;
    detail::put_rendered(dir, "report.json", [&] { return json(report).dump(2) + "\n"; }, errors);
    detail::put_rendered(dir, "report.md", [&] { return to_markdown(report); }, errors);
    detail::put_rendered(dir, "report.html", [&] { return to_html(report); }, errors);
    detail::put_rendered(dir, "latency.hlog", [&] { return to_hlog(report); }, errors);
    return errors;
}

MCP_LOADTEST_DECL const run_directory_result& last_run_directory() { return detail::last_run_directory_slot(); }

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<run_directory_recorder> run_directory_recorder::open(run_options& options, any_server& server) {
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
    if (options.client.record && options.recording_path.empty()) options.recording_path = r.dir_ / "recording.jsonl";
    if (auto* stdio = std::get_if<stdio_server>(&server);
        o.server_stderr && stdio && stdio->stderr_to == stderr_mode::inherit) {
        stdio->stderr_to = stderr_mode::tee;  // still on the test's stderr, and in the file
        stdio->stderr_path = r.dir_ / "stderr-{session}.log";
    }
    last_run_directory_slot() = run_directory_result{r.dir_, {}};
    return r;
}

MCP_LOADTEST_DECL void run_directory_recorder::commit(const load_report& report) noexcept {
    run_directory_result result{dir_, {}};
    try {
        result.error = write_report_files(dir_, report);
        publish_run_directory(dir_, keep_);
    } catch (const std::exception& e) {
        result.error += (result.error.empty() ? "" : "; ") + std::string(e.what());
    }
    finish(std::move(result));
}

MCP_LOADTEST_DECL void run_directory_recorder::abandon(const std::exception_ptr& error) noexcept {
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

MCP_LOADTEST_DECL void run_directory_recorder::finish(run_directory_result result) {
    if (!result.error.empty()) say_run_directory_problem(result);
    last_run_directory_slot() = std::move(result);
}

}  // namespace mcp_loadtest::detail
