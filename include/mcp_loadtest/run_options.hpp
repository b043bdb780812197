// Knobs of a load run beyond the workload, the mix and the thresholds.
#pragma once

#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/detail/session/cancel_moment.hpp>
#include <mcp_loadtest/leak_detection.hpp>
#include <mcp_loadtest/report/shard.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcp_loadtest {

class oauth_client;  // <mcp_loadtest/auth.hpp>
struct recording;    // <mcp_loadtest/replay/recording.hpp>

/// run_options::progress: live progress on stderr (report/terminal.hpp).
enum class progress_mode { automatic, on, off };

/// The run directory run() writes (docs/reports.md#the-run-directory): report.json,
/// report.md, report.html, latency.hlog, trace.jsonl and stderr-<session>.log under
/// <root>/<case>/<UTC time>/, with <root>/<case>/latest naming the newest.
struct run_directory_options {
    /// false: no directory, even inside an MCP_LOADTEST_CASE ($MCP_LOADTEST_RUN_DIRECTORY=off too).
    bool enabled = true;
    /// Where the directories go. Setting it also writes one for a run outside any case.
    /// Empty: $MCP_LOADTEST_RUN_ROOT, else mcp-loadtest-runs beside the test program (its build tree).
    std::filesystem::path root{};
    /// The directory's name, slugified; empty: the current case's name ("run" outside a case).
    std::string name{};
    /// trace.jsonl when trace_path is empty: ~170 bytes and ~0.1 µs of CPU per call (docs/benchmarks.md).
    bool trace = true;
    /// stderr-<session>.log for stdio servers whose stderr is `inherit` (tee'd: still shown).
    bool server_stderr = true;
    /// Run directories kept per case (the oldest are removed); 0: keep all.
    std::size_t keep = 10;
};

struct run_options {
    /// Server processes to spread the load over (iterations go round-robin).
    /// One session puts every call on one pipe; several find different bugs.
    std::size_t sessions = 1;
    /// OAuth credentials per session (docs/authentication.md#credentials-per-session): the
    /// oauth_client session `i` uses, in place of the server description's own. Empty: every
    /// session shares the description's client. A list: `[list](std::size_t i) { return
    /// list[i % list.size()]; }`.
    std::function<std::shared_ptr<oauth_client>(std::size_t session)> oauth_for_session{};
    client_options client{};
    /// Per call: timeout (a hang), grace (a deadlock), cancellation on timeout.
    call_options call{.timeout = std::chrono::seconds(30)};
    std::uint64_t seed = 20260728;  ///< mix selection and generated arguments
    /// Sample every server's RSS, CPU, fds and threads this often (0: off).
    std::chrono::milliseconds sample_interval{1000};
    /// Further processes to sample: a network server is not spawned by the
    /// run, so name its pid here (server_process::pid() when launch() started it).
    std::vector<pid_t> sample_pids{};
    /// Leak detection on the samples. A zero warm-up means: the first 20 % of
    /// the run, at most 30 s.
    leak_options leak{.warmup = std::chrono::milliseconds(0)};
    /// Write one JSON line per call (and per process sample) here; empty: no trace.
    std::filesystem::path trace_path{};
    /// With client.record: the run's recording (every session's messages, docs/replay.md) is
    /// written here when the run ends, atomically. In a run directory: its recording.jsonl.
    std::filesystem::path recording_path{};
    /// With client.record: the recording is also handed over here when the run ends.
    std::shared_ptr<recording> record_into{};
    std::chrono::milliseconds timeline_bucket{1000};
    /// Staged workloads: a stage breaks when its p99 or error rate crosses these
    /// (unset: the run's p99 / error_rate thresholds).
    std::optional<std::chrono::nanoseconds> breaking_p99{};
    std::optional<double> breaking_error_rate{};
    /// Before the load: tools/list (and resources/list, prompts/list when the
    /// server declares them) once on the first session, unmeasured. It gives
    /// the report's coverage its denominator and strict mode the tools' schemas.
    bool list_before_run = true;
    /// Bound on connecting the sessions and on closing them at the end.
    std::chrono::milliseconds close_timeout{10000};
    /// Cancellation injection: the first request of `cancel.fraction` of the
    /// iterations is cancelled at `cancel.moment`; what the server did is in
    /// load_report::cancellation (docs/detectors.md#cancellation). Off by default.
    cancel_injection cancel{};
    /// Sharded runs (docs/reports.md#sharded-runs): run shard `index` of `count` of the workload
    /// (rates and users divided, a distinct seed), starting the load at `start`; the report
    /// records the shard. Default: the whole run. mlt::shard_from_environment() reads it from
    /// MCP_LOADTEST_SHARD=i/N and MCP_LOADTEST_SHARD_START.
    shard_spec shard{};
    /// The run directory (written inside an MCP_LOADTEST_CASE, or when `run_directory.root` is set).
    run_directory_options run_directory{};
    /// Live progress on stderr, once a second (docs/reports.md#live-progress-and-the-final-summary):
    /// automatic shows it on a terminal outside CI; MCP_LOADTEST_PROGRESS=1/0 overrides automatic.
    progress_mode progress = progress_mode::automatic;
};

}  // namespace mcp_loadtest
