// The Linux backend of detail/os/process_info.hpp: /proc.
#pragma once

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <mcp_loadtest/detail/os/linux/procfs.hpp>  // empty elsewhere: reached on every system

#if MCP_LOADTEST_OS_LINUX

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<proc_identity> read_proc_identity(pid_t pid) noexcept {
    long long field[25] = {};
    char state = '?';
    if (!read_stat_fields(pid, field, state)) return std::nullopt;
    proc_identity id;
    id.parent = static_cast<pid_t>(field[4]);
    id.process_group = static_cast<pid_t>(field[5]);
    id.session = static_cast<pid_t>(field[6]);
    id.state = state;
    id.start_ticks = field[22] > 0 ? static_cast<std::uint64_t>(field[22]) : 0u;
    return id;
}

MCP_LOADTEST_DECL std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> out;
    if (pid <= 0) return out;
    const auto parse_pid = [](const char* name) -> pid_t {
        char* end = nullptr;
        const long v = std::strtol(name, &end, 10);
        return end != name && *end == '\0' && v > 0 ? static_cast<pid_t>(v) : 0;
    };
    char path[320];  // "/proc/<pid>/task/<tid>/children"; a d_name holds up to 255 bytes
    std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
    DIR* tasks = ::opendir(path);
    if (!tasks) return out;
    bool have_children_files = true;
    while (const dirent* t = ::readdir(tasks)) {
        if (!parse_pid(t->d_name)) continue;
        std::snprintf(path, sizeof path, "/proc/%d/task/%s/children", static_cast<int>(pid), t->d_name);
        char buf[4096];
        const ssize_t len = read_small_file(path, buf, sizeof buf - 1);
        if (len < 0) {
            if (errno == ENOENT) have_children_files = false;  // no such file, or the thread just ended
            continue;
        }
        buf[len] = '\0';
        for (char* p = buf;;) {
            char* end = nullptr;
            const long v = std::strtol(p, &end, 10);
            if (end == p) break;
            if (v > 0) out.push_back(static_cast<pid_t>(v));
            p = end;
        }
    }
    ::closedir(tasks);
    if (have_children_files) return out;
    out.clear();
    DIR* all = ::opendir("/proc");
    if (!all) return out;
    while (const dirent* e = ::readdir(all)) {
        const pid_t p = parse_pid(e->d_name);
        if (!p) continue;
        if (const auto id = read_proc_identity(p); id && id->parent == pid) out.push_back(p);
    }
    ::closedir(all);
    return out;
}

MCP_LOADTEST_DECL std::optional<proc_reading> read_proc(pid_t pid) noexcept {
    // Fields used (1-based, see proc(5)): utime 14, stime 15, num_threads 20, starttime 22, rss 24.
    long long field[25] = {};
    char state = '?';
    if (!read_stat_fields(pid, field, state)) return std::nullopt;
    if (state == 'Z' || state == 'X' || state == 'x') return std::nullopt;  // dead: nothing left to measure
    const auto non_negative = [](long long v) { return v > 0 ? static_cast<std::uint64_t>(v) : 0u; };

    proc_reading r;
    const std::uint64_t cpu_ticks = non_negative(field[14]) + non_negative(field[15]);
    r.cpu_time = std::chrono::nanoseconds(static_cast<std::int64_t>(
        static_cast<double>(cpu_ticks) * 1e9 / static_cast<double>(clock_ticks_per_second())));
    r.threads = static_cast<std::uint32_t>(non_negative(field[20]));
    r.start_ticks = non_negative(field[22]);
    r.rss_bytes = non_negative(field[24]) * page_size();
    const auto fds = count_open_fds(pid);
    if (!fds) return std::nullopt;  // exited between the two reads
    r.open_fds = *fds;
    return r;
}

MCP_LOADTEST_DECL std::vector<proc_entry> snapshot_processes() {
    std::vector<proc_entry> out;
    DIR* dir = ::opendir("/proc");
    if (!dir) return out;
    while (const dirent* e = ::readdir(dir)) {
        char* end = nullptr;
        const long v = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || v <= 0) continue;
        const auto id = read_proc_identity(static_cast<pid_t>(v));
        if (!id) continue;  // exited meanwhile
        out.push_back({static_cast<pid_t>(v), id->parent, id->process_group, id->session, id->state, id->start_ticks});
    }
    ::closedir(dir);
    return out;
}

MCP_LOADTEST_DECL std::string command_line(pid_t pid, std::size_t max_chars) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/cmdline", static_cast<int>(pid));
    // One byte more than is kept, so a longer command line is seen to be cut.
    std::string buf(max_chars + 1, '\0');
    const ssize_t len = read_small_file(path, buf.data(), buf.size());
    std::vector<std::string> args;
    for (ssize_t i = 0; i < len;) {
        // Arguments end with a NUL; one cut by the buffer's end may not.
        args.emplace_back(buf.data() + i, ::strnlen(buf.data() + i, static_cast<std::size_t>(len - i)));
        i += static_cast<ssize_t>(args.back().size()) + 1;
    }
    std::string out = join_command(args, max_chars);
    if (out.empty()) {
        std::snprintf(path, sizeof path, "/proc/%d/comm", static_cast<int>(pid));
        char comm[64];
        const ssize_t n = read_small_file(path, comm, sizeof comm);
        if (n > 0) out.assign(comm, static_cast<std::size_t>(n));
        while (!out.empty() && out.back() == '\n') out.pop_back();
        if (!out.empty()) out = "[" + out + "]";
    }
    return out;
}

MCP_LOADTEST_DECL pid_t this_process_id() noexcept { return ::getpid(); }

MCP_LOADTEST_DECL std::filesystem::path this_process_executable() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : path;
}

MCP_LOADTEST_DECL std::chrono::nanoseconds this_process_cpu_time() noexcept {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto tv = [](const timeval& v) { return std::chrono::seconds(v.tv_sec) + std::chrono::microseconds(v.tv_usec); };
    return tv(u.ru_utime) + tv(u.ru_stime);
}

MCP_LOADTEST_DECL std::string signal_name(int signal) {
    const char* name = ::sigabbrev_np(signal);
    return name ? std::string("SIG") + name : std::string();
}

MCP_LOADTEST_DECL bool stderr_is_terminal() noexcept { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
