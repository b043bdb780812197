// Definitions of report/baseline.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/baseline.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/os/utc_time.hpp>
#include <mcp_loadtest/detail/os/machine_info.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

namespace mcp_loadtest {

MCP_LOADTEST_DECL void to_json(json& j, const measurement_environment& e) {
    j = json{{"cpu_model", e.cpu_model}, {"cores", e.cores}, {"compiler", e.compiler},
             {"library_version", e.library_version}, {"kernel", e.kernel}};
}

MCP_LOADTEST_DECL void from_json(const json& j, measurement_environment& e) {
    e.cpu_model = j.value("cpu_model", std::string());
    e.cores = j.value("cores", 0u);
    e.compiler = j.value("compiler", std::string());
    e.library_version = j.value("library_version", std::string());
    e.kernel = j.value("kernel", std::string());
}

MCP_LOADTEST_DECL void to_json(json& j, const baseline& b) {
    j = json{{"schema", "mcp-loadtest/baseline/v1"}, {"created_at", b.created_at}, {"environment", b.environment},
             {"workload", b.workload}, {"workload_parameters", b.workload_parameters}, {"report", b.report}};
}

MCP_LOADTEST_DECL void from_json(const json& j, baseline& b) {
    if (!j.is_object() || j.value("schema", std::string()) != "mcp-loadtest/baseline/v1")
        throw std::invalid_argument("not an mcp-loadtest baseline (missing \"schema\": \"mcp-loadtest/baseline/v1\")");
    b.created_at = j.value("created_at", std::string());
    b.environment = j.value("environment", measurement_environment{});
    b.workload = j.value("workload", std::string());
    b.workload_parameters = j.value("workload_parameters", json::object());
    b.report = j.at("report").get<load_report>();
}

MCP_LOADTEST_DECL std::filesystem::path resolve_baseline_path(const std::filesystem::path& p) {
    if (p.is_absolute()) return p;
    if (const char* dir = std::getenv("MCP_LOADTEST_BASELINE_DIR"); dir && *dir) return std::filesystem::path(dir) / p;
    return std::filesystem::current_path() / p;
}

MCP_LOADTEST_DECL void write_baseline(const baseline& b, const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    const auto tmp = path.string() + ".tmp-" + std::to_string(detail::this_process_id());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write the baseline " + tmp + ": check that its directory is writable");
        out << json(b).dump(1) << '\n';
        out.flush();
        if (!out) throw std::runtime_error("writing the baseline " + tmp + " failed (disk full?)");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp);
        throw std::runtime_error("cannot rename " + tmp + " to " + path.string() + ": " + ec.message());
    }
}

MCP_LOADTEST_DECL baseline read_baseline(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open the baseline " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    try {
        return json::parse(text.str()).get<baseline>();
    } catch (const std::exception& e) {
        throw std::invalid_argument("the baseline " + path.string() + " is damaged (" + e.what() +
                                    "): delete it and recreate it with MCP_LOADTEST_UPDATE_BASELINES=1");
    }
}

MCP_LOADTEST_DECL std::vector<std::string> environment_mismatches(const measurement_environment& then,
                                                                  const measurement_environment& now) {
    std::vector<std::string> out;
    if (then.cpu_model != now.cpu_model || then.cores != now.cores)
        out.push_back("the baseline was measured on another machine (" + then.cpu_model + ", " +
                      std::to_string(then.cores) + " cores; now " + now.cpu_model + ", " + std::to_string(now.cores) +
                      " cores): a change may be the machine's");
    if (then.compiler != now.compiler)
        out.push_back("the baseline was built by " + then.compiler + ", this run by " + now.compiler);
    if (then.library_version != now.library_version)
        out.push_back("the baseline was measured with mcp-loadtest " + then.library_version + ", this run with " +
                      now.library_version);
    return out;
}

namespace detail {

MCP_LOADTEST_DECL std::string ctest_regex(std::string_view name) {
    std::string out;
    for (char c : name) {
        if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out;
}

MCP_LOADTEST_DECL bool update_baselines_requested() {
    const char* v = std::getenv("MCP_LOADTEST_UPDATE_BASELINES");
    return v && *v && std::string_view(v) != "0";
}

MCP_LOADTEST_DECL std::string update_command(std::string_view test_name) {
    std::error_code ec;
    const char* build = std::getenv("MCP_LOADTEST_BUILD_DIR");
    const std::string dir = build && *build ? build : std::filesystem::current_path(ec).string();
    return "MCP_LOADTEST_UPDATE_BASELINES=1 ctest --test-dir " + dir + " -R '" +
           (test_name.empty() ? std::string("<this test>") : ctest_regex(test_name)) + "'";
}

}  // namespace detail

MCP_LOADTEST_DECL regression_check check_regression(const load_report& report, const std::filesystem::path& path,
                                                    const comparison_rules& rules, std::string_view test_name) {
    regression_check c;
    c.path = resolve_baseline_path(path);
    if (detail::update_baselines_requested()) {
        if (report.aborted)
            throw std::runtime_error("refusing to record an aborted run as the baseline " + c.path.string() + " (" +
                                     report.abort_reason + "): fix the run first");
        const bool existed = std::filesystem::exists(c.path);
        write_baseline(baseline::of(report), c.path);
        c.baseline_written = true;
        c.message = std::string(existed ? "refreshed" : "wrote") + " the baseline " + c.path.string() +
                    " (MCP_LOADTEST_UPDATE_BASELINES is set): commit it; later runs are compared with it.";
        return c;
    }
    if (!std::filesystem::exists(c.path)) {
        c.missing = true;
        c.message = "no baseline at " + c.path.string() + " to compare this run with. Create it by running this test with\n  " +
                    detail::update_command(test_name) + "\nand commit the file (relative baseline paths resolve against " +
                    "$MCP_LOADTEST_BASELINE_DIR, else the current directory).";
        return c;
    }
    const baseline b = read_baseline(c.path);
    c.result = compare(b.report, report, rules);
    for (auto& m : environment_mismatches(b.environment, measurement_environment::current()))
        c.result.mismatches.push_back(std::move(m));
    c.result.advice = "If the change is intended, refresh the baseline with\n  " + detail::update_command(test_name) +
                      "\nand commit " + c.path.string() + "; if not, look at what changed on the regressed paths.";
    c.message = "against the baseline " + c.path.string() + " (" + b.created_at + "): " + c.result.verdict_sentence();
    return c;
}

MCP_LOADTEST_DECL regression_check check_regression(const load_report& report, const std::filesystem::path& path,
                                                    std::string_view test_name) {
    return check_regression(report, path, comparison_rules{}, test_name);
}

namespace detail {

MCP_LOADTEST_DECL std::string no_regression_failure(const load_report& report, const std::string& test_name,
                                                    const std::filesystem::path& path, const comparison_rules& rules) {
    const auto c = check_regression(report, path, rules, test_name);
    if (c.passed()) {
        std::fprintf(stderr, "mcp-loadtest: %s\n", c.message.c_str());
        return {};
    }
    return c.message;
}

MCP_LOADTEST_DECL std::string no_regression_failure(const load_report& report, const std::string& test_name,
                                                    const std::filesystem::path& path) {
    return no_regression_failure(report, test_name, path, comparison_rules{});
}

}  // namespace detail


MCP_LOADTEST_DECL measurement_environment measurement_environment::current() {
    return {detail::cpu_model(), detail::cpu_cores(), detail::compiler_id(), version_string, detail::kernel_id()};
}

MCP_LOADTEST_DECL baseline baseline::of(const load_report& r) {
    baseline b;
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    const std::tm tm = detail::utc_calendar(now);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    b.created_at = buf;
    b.environment = measurement_environment::current();
    b.workload = r.workload;
    b.workload_parameters = r.workload_parameters;
    b.report = r;
    return b;
}

}  // namespace mcp_loadtest
