// Definitions of detail/os/gdb_backtrace.hpp that every system shares: the
// parsers of gdb's output (header-only: included by it; separate compilation:
// compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/gdb_backtrace.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string frame_function(std::string_view line) {
    if (line.empty() || line.front() != '#') return "??";
    line.remove_prefix(1);
    while (!line.empty() && line.front() >= '0' && line.front() <= '9') line.remove_prefix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.rfind("0x", 0) == 0) {
        const auto in = line.find(" in ");
        if (in == std::string_view::npos) return "??";
        line.remove_prefix(in + 4);
    }
    const auto end = line.find_first_of(" (");
    return std::string(line.substr(0, end));
}

MCP_LOADTEST_DECL bool in_c_library_frame(std::string_view line, const std::string& f) {
    if (f.empty() || f == "??" || f.rfind("__", 0) == 0) return true;
    for (const char* where : {"libc.so", "libpthread.so", "ld-linux", " at ./nptl/", " at ../sysdeps/", " at ./misc/",
                              " at ../nptl/", " at ./posix/", " at ./io/", " at ./socket/"})
        if (line.find(where) != std::string_view::npos) return true;
    static constexpr const char* wrappers[] = {
        "do_futex_wait", "futex_wait", "futex_abstimed_wait", "sem_wait", "sem_timedwait", "sem_clockwait",
        "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "pthread_mutex_lock",
        "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_join", "syscall", "read", "write", "readv",
        "writev", "recv", "recvfrom", "recvmsg", "send", "sendto", "sendmsg", "poll", "ppoll", "select", "pselect",
        "epoll_wait", "epoll_pwait", "nanosleep", "clock_nanosleep", "usleep", "sleep", "accept", "accept4",
        "waitpid", "wait4", "waitid", "connect", "pause", "sigsuspend", "sigtimedwait", "sigwait", "flock", "fcntl",
        "fcntl64", "lockf", "msgrcv", "semop", "semtimedop"};
    for (const char* w : wrappers)
        if (f == w) return true;
    return false;
}

MCP_LOADTEST_DECL std::vector<gdb_thread_stack> parse_gdb_threads(const std::string& output) {
    std::vector<gdb_thread_stack> out;
    std::size_t at = 0;
    while (at < output.size()) {
        auto eol = output.find('\n', at);
        if (eol == std::string::npos) eol = output.size();
        const std::string_view line(output.data() + at, eol - at);
        if (line.rfind("Thread ", 0) == 0) {
            gdb_thread_stack t;
            if (const auto lwp = line.find("LWP "); lwp != std::string_view::npos)
                t.tid = static_cast<pid_t>(std::strtol(line.data() + lwp + 4, nullptr, 10));
            t.text.assign(line);
            out.push_back(std::move(t));
        } else if (!out.empty() && !line.empty()) {
            if (line.front() == '#') {
                out.back().functions.push_back(frame_function(line));
                out.back().in_c_library.push_back(in_c_library_frame(line, out.back().functions.back()));
            }
            if (line.front() == '#' || line.front() == ' ') {
                out.back().text += '\n';
                out.back().text.append(line);
            }
        }
        at = eol + 1;
    }
    return out;
}

MCP_LOADTEST_DECL std::string own_top_frame(const gdb_thread_stack& t) {
    for (std::size_t i = 0; i < t.functions.size(); ++i)
        if (!t.in_c_library[i]) return t.functions[i];
    return {};
}

}  // namespace mcp_loadtest::detail
