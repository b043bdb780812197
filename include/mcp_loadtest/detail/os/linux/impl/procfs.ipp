// Definitions of detail/os/linux/procfs.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/linux/procfs.hpp>

#if MCP_LOADTEST_OS_LINUX

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

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
