// Definitions of detail/os/procfs.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/procfs.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL long clock_ticks_per_second() noexcept {
    static const long ticks = [] {
        const long t = ::sysconf(_SC_CLK_TCK);
        return t > 0 ? t : 100;
    }();
    return ticks;
}

MCP_LOADTEST_DECL std::uint64_t page_size() noexcept {
    static const std::uint64_t size = [] {
        const long s = ::sysconf(_SC_PAGESIZE);
        return s > 0 ? static_cast<std::uint64_t>(s) : 4096u;
    }();
    return size;
}

MCP_LOADTEST_DECL ssize_t read_small_file(const char* path, char* buf, std::size_t cap) noexcept {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t len = 0;
    while (len < cap) {
        const ssize_t n = ::read(fd, buf + len, cap - len);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int saved = errno;
            ::close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0) break;
        len += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return static_cast<ssize_t>(len);
}

MCP_LOADTEST_DECL std::optional<std::uint32_t> count_open_fds(pid_t pid) noexcept {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd", static_cast<int>(pid));
    DIR* dir = ::opendir(path);  // glibc opens it close-on-exec
    if (!dir) {
        if (errno == EACCES || errno == EPERM) return 0u;
        return std::nullopt;
    }
    std::uint32_t n = 0;
    while (const dirent* e = ::readdir(dir))
        if (e->d_name[0] != '.') ++n;
    ::closedir(dir);
    return n;
}

MCP_LOADTEST_DECL bool read_stat_fields(pid_t pid, long long (&field)[25], char& state) noexcept {
    if (pid <= 0) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    char buf[1024];  // stat is one line of ~52 numbers; comm is at most 16 bytes
    const ssize_t len = read_small_file(path, buf, sizeof buf - 1);
    if (len <= 0) return false;
    buf[len] = '\0';
    // "pid (comm) state ppid ..."; comm may contain spaces and ')', so look for the last one.
    char* p = nullptr;
    for (ssize_t i = len - 1; i >= 0; --i) {
        if (buf[i] == ')') {
            p = buf + i + 1;
            break;
        }
    }
    if (!p || p[0] != ' ' || p[1] == '\0') return false;
    state = p[1];
    p += 2;
    for (int i = 4; i <= 24; ++i) {
        char* end = nullptr;
        field[i] = std::strtoll(p, &end, 10);
        if (end == p) return false;
        p = end;
    }
    return true;
}

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
    r.cpu_ticks = non_negative(field[14]) + non_negative(field[15]);
    r.threads = static_cast<std::uint32_t>(non_negative(field[20]));
    r.start_ticks = non_negative(field[22]);
    r.rss_bytes = non_negative(field[24]) * page_size();
    const auto fds = count_open_fds(pid);
    if (!fds) return std::nullopt;  // exited between the two reads
    r.open_fds = *fds;
    return r;
}

}  // namespace mcp_loadtest::detail
