// What each thread of a process is doing now, from Linux /proc/<pid>/task/<tid>:
// stat (its state), comm (its name), wchan (the kernel function it sleeps in)
// and syscall (the system call it is blocked in, with its arguments). Reading
// `syscall` needs the same permission as attaching a debugger: a server the
// test started is its child, which is allowed.
#pragma once

#include <mcp_loadtest/detail/procfs.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

namespace mcp_loadtest::detail {

/// One thread as /proc shows it.
struct thread_reading {
    pid_t tid = 0;
    std::string name;  ///< comm: at most 15 bytes
    char state = '?';  ///< R, S, D, T, t, Z, ...
    std::string wchan;  ///< "" when running or hidden ("0")
    /// The system call it is in: >= 0 its number; -1 blocked outside a system
    /// call (a page fault); -2 running on a CPU; -3 unreadable (permission).
    long syscall = -3;
    std::array<std::uint64_t, 6> args{};
};

/// "/proc/<pid>/task/<tid>/<file>" into buf (trimmed of its final newline); false when unreadable.
inline bool read_task_file(pid_t pid, pid_t tid, const char* file, std::string& out) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/%s", static_cast<int>(pid), static_cast<int>(tid), file);
    char buf[512];
    const ssize_t len = read_small_file(path, buf, sizeof buf);
    if (len < 0) return false;
    out.assign(buf, static_cast<std::size_t>(len));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
    return true;
}

/// The thread ids of a process, in /proc's order (the main thread first). Empty when it is gone.
inline std::vector<pid_t> thread_ids(pid_t pid) {
    std::vector<pid_t> out;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
    DIR* dir = ::opendir(path);
    if (!dir) return out;
    while (const dirent* e = ::readdir(dir)) {
        char* end = nullptr;
        const long v = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && v > 0) out.push_back(static_cast<pid_t>(v));
    }
    ::closedir(dir);
    return out;
}

/// Parses a task's `syscall` file: "202 0x7f.. 0x80 ... sp pc", "-1 sp pc" or "running".
inline void parse_syscall_line(const std::string& text, thread_reading& t) {
    if (text.rfind("running", 0) == 0) {
        t.syscall = -2;
        return;
    }
    const char* p = text.c_str();
    char* end = nullptr;
    const long number = std::strtol(p, &end, 10);
    if (end == p) return;
    t.syscall = number < 0 ? -1 : number;
    for (auto& a : t.args) {
        p = end;
        const unsigned long long v = std::strtoull(p, &end, 16);  // "0x.." parses as hex
        if (end == p) break;
        a = v;
    }
}

/// A thread's state, name, wchan and system call; state '?' when it ended meanwhile.
inline thread_reading read_thread(pid_t pid, pid_t tid) {
    thread_reading t;
    t.tid = tid;
    std::string text;
    if (read_task_file(pid, tid, "stat", text)) {
        const auto close = text.rfind(')');
        if (close != std::string::npos && close + 2 < text.size()) t.state = text[close + 2];
    }
    if (read_task_file(pid, tid, "comm", text)) t.name = text;
    if (read_task_file(pid, tid, "wchan", text) && text != "0") t.wchan = text;
    if (read_task_file(pid, tid, "syscall", text)) parse_syscall_line(text, t);
    return t;
}

/// What fd `fd` of `pid` is: "pipe:[123]", "socket:[456]", "/dev/null", ...; "" when unknown.
inline std::string fd_target(pid_t pid, std::uint64_t fd) {
    if (fd > 1u << 30) return {};
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/%llu", static_cast<int>(pid), static_cast<unsigned long long>(fd));
    char buf[256];
    const ssize_t len = ::readlink(path, buf, sizeof buf);
    if (len <= 0) return {};
    return std::string(buf, static_cast<std::size_t>(len));
}

}  // namespace mcp_loadtest::detail
