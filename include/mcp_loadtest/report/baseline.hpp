// Baselines on disk and the regression gate (docs/reports.md#regression-gates-with-baselines):
//
//     MCP_CHECK_NO_REGRESSION(report, "perf/baselines/echo.json");
//     MCP_REQUIRE_NO_REGRESSION(report, "perf/baselines/echo.json", rules);  // with comparison_rules
//
// A baseline file holds a load report and what it was measured on: the machine (CPU model,
// cores), the compiler, the library version and the workload. A missing baseline fails with the
// command that creates it; with MCP_LOADTEST_UPDATE_BASELINES=1 in the environment the check
// writes (or refreshes) the file atomically and passes, saying so. Relative paths resolve against
// $MCP_LOADTEST_BASELINE_DIR when it is set, else against the current directory.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/report/compare.hpp>
#include <mcp_loadtest/version.hpp>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// What a measurement was taken on.
struct measurement_environment {
    std::string cpu_model;
    unsigned cores = 0;
    std::string compiler;
    std::string library_version;
    std::string kernel;  ///< recorded, not compared (kernel updates are routine on CI runners)

    /// This machine (the CPU's name, its cores, the system's version) and the compiler of this translation unit.
    [[nodiscard]] MCP_LOADTEST_DECL static measurement_environment current();
};

/// A baseline file: the report and its environment.
struct baseline {
    std::string created_at;  ///< ISO 8601 UTC
    measurement_environment environment;
    std::string workload;
    json workload_parameters = json::object();
    load_report report;

    /// `r` measured here, now.
    [[nodiscard]] MCP_LOADTEST_DECL static baseline of(const load_report& r);
};

MCP_LOADTEST_DECL void to_json(json& j, const measurement_environment& e);
MCP_LOADTEST_DECL void from_json(const json& j, measurement_environment& e);
MCP_LOADTEST_DECL void to_json(json& j, const baseline& b);
MCP_LOADTEST_DECL void from_json(const json& j, baseline& b);

/// Where a baseline path points: absolute paths as they are; relative ones under
/// $MCP_LOADTEST_BASELINE_DIR when set (mcp_loadtest_add_tests sets it to the source directory),
/// else under the current directory.
[[nodiscard]] MCP_LOADTEST_DECL std::filesystem::path resolve_baseline_path(const std::filesystem::path& p);

/// Writes `b` to `path` atomically: a temporary file beside it, then rename(), so a crash never
/// leaves half a baseline. Creates missing directories.
MCP_LOADTEST_DECL void write_baseline(const baseline& b, const std::filesystem::path& path);

/// Reads a baseline file; a missing or damaged one is std::runtime_error / std::invalid_argument
/// saying which file and what to do.
[[nodiscard]] MCP_LOADTEST_DECL baseline read_baseline(const std::filesystem::path& path);

/// What differs between the baseline's environment and this one, one sentence each.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> environment_mismatches(const measurement_environment& then,
                                                                                const measurement_environment& now);

/// The result of a regression check.
struct regression_check {
    std::filesystem::path path;    ///< the resolved baseline file
    bool baseline_written = false; ///< MCP_LOADTEST_UPDATE_BASELINES=1 wrote or refreshed it
    bool missing = false;          ///< no baseline, and no update asked for
    comparison result;             ///< empty when the baseline was written or is missing
    std::string message;           ///< for the test log: the verdict, or what was done / what to do

    [[nodiscard]] bool passed() const noexcept { return baseline_written || (!missing && result.passed()); }
};

namespace detail {

/// `name` as an extended regex matching itself, quoted for a POSIX shell's single quotes.
MCP_LOADTEST_DECL std::string ctest_regex(std::string_view name);

MCP_LOADTEST_DECL bool update_baselines_requested();

MCP_LOADTEST_DECL std::string update_command(std::string_view test_name);

}  // namespace detail

/// Compares `report` with the baseline at `path` (resolved by resolve_baseline_path), or writes
/// it when MCP_LOADTEST_UPDATE_BASELINES=1. `test_name` only goes into the command a missing
/// baseline's message prints.
[[nodiscard]] MCP_LOADTEST_DECL regression_check check_regression(const load_report& report, const std::filesystem::path& path,
                                                                  const comparison_rules& rules, std::string_view test_name = {});
[[nodiscard]] MCP_LOADTEST_DECL regression_check check_regression(const load_report& report, const std::filesystem::path& path,
                                                                  std::string_view test_name = {});

namespace detail {

/// For MCP_CHECK_NO_REGRESSION: empty when the check passes (after telling stderr what it did).
MCP_LOADTEST_DECL std::string no_regression_failure(const load_report& report, const std::string& test_name,
                                                    const std::filesystem::path& path, const comparison_rules& rules);
MCP_LOADTEST_DECL std::string no_regression_failure(const load_report& report, const std::string& test_name,
                                                    const std::filesystem::path& path);

}  // namespace detail
}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/baseline.ipp>
#endif
