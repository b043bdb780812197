// The Linux backend of detail/os/thread_readings.hpp: /proc/<pid>/task.
#pragma once

#include <mcp_loadtest/detail/os/thread_readings.hpp>

#include <mcp_loadtest/detail/os/linux/procfs.hpp>  // empty elsewhere: reached on every system

#if MCP_LOADTEST_OS_LINUX

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL bool read_task_file(pid_t pid, pid_t tid, const char* file, std::string& out) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/%s", static_cast<int>(pid), static_cast<int>(tid), file);
    char buf[512];
    const ssize_t len = read_small_file(path, buf, sizeof buf);
    if (len < 0) return false;
    out.assign(buf, static_cast<std::size_t>(len));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
    return true;
}

MCP_LOADTEST_DECL std::vector<pid_t> thread_ids(pid_t pid) {
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

MCP_LOADTEST_DECL thread_reading read_thread(pid_t pid, pid_t tid) {
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

MCP_LOADTEST_DECL std::string fd_target(pid_t pid, std::uint64_t fd) {
    if (fd > 1u << 30) return {};
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/%llu", static_cast<int>(pid), static_cast<unsigned long long>(fd));
    char buf[256];
    const ssize_t len = ::readlink(path, buf, sizeof buf);
    if (len <= 0) return {};
    return std::string(buf, static_cast<std::size_t>(len));
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
