// Native stack traces of a live process: `gdb -batch -p <pid> -ex "thread
// apply all bt"`, bounded in time (gdb is SIGKILLed at the deadline), and the
// process checked afterwards: gdb stops it to read it and detaches when done,
// but a gdb killed mid-attach can leave it stopped (state T), which is undone
// with SIGCONT. Linux only (linux/impl/gdb_run.ipp); on Windows
// native_stacks_unavailable() says why none are taken. The parsers of gdb's
// output are system-free (impl/gdb_backtrace.ipp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/thread_readings.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// Why this system takes no native stacks, in words for a report; nullptr where it takes them.
[[nodiscard]] MCP_LOADTEST_DECL const char* native_stacks_unavailable() noexcept;

/// The full path of an executable on PATH, or "" when there is none.
MCP_LOADTEST_DECL std::string find_on_path(std::string_view name);

struct gdb_run {
    bool timed_out = false;
    int exit_code = -1;   ///< gdb's exit status (-1: killed or not run)
    std::string output;   ///< stdout and stderr, interleaved, at most 1 MB
    bool left_stopped = false;  ///< the process was in state T afterwards (and was sent SIGCONT)
    char state_after = '?';
};

MCP_LOADTEST_DECL char process_state(pid_t pid);

/// True if any thread of `pid` is stopped (T) or traced (t).
MCP_LOADTEST_DECL bool any_thread_stopped(pid_t pid);

/// Runs gdb on `pid` within `budget`. Never leaves the process stopped unless it was stopped before.
MCP_LOADTEST_DECL gdb_run run_gdb_backtrace(const std::string& gdb, pid_t pid, std::chrono::milliseconds budget);

/// One thread's backtrace as gdb printed it.
struct gdb_thread_stack {
    pid_t tid = 0;
    std::string text;                 ///< the "Thread N (...)" line and its frames
    std::vector<std::string> functions;  ///< each frame's function, innermost first ("??" when unknown)
    std::vector<bool> in_c_library;      ///< per frame: the C library's own code
};

/// The function a frame line names: "#0  f (...) at ..." or "#1  0x.. in f (...) from ...".
MCP_LOADTEST_DECL std::string frame_function(std::string_view line);

/// True for a frame of the C library (its wait and I/O wrappers, its
/// internals, anything gdb places in libc), under a blocked thread's own code.
MCP_LOADTEST_DECL bool in_c_library_frame(std::string_view line, const std::string& f);

/// Splits gdb's "thread apply all bt" output by thread (the "(LWP <tid>)" of each header).
MCP_LOADTEST_DECL std::vector<gdb_thread_stack> parse_gdb_threads(const std::string& output);

/// The innermost frame of the thread's own code (not the C library's wrappers), or "".
MCP_LOADTEST_DECL std::string own_top_frame(const gdb_thread_stack& t);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/gdb_backtrace.ipp>
#include <mcp_loadtest/detail/os/linux/impl/gdb_run.ipp>
#include <mcp_loadtest/detail/os/windows/impl/gdb_run.ipp>
#include <mcp_loadtest/detail/os/macos/impl/gdb_run.ipp>
#endif
