// Reading one process's counters from Linux /proc without iostreams or
// exceptions: a sampler does it for every server every few milliseconds.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <sys/types.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

/// One raw reading of /proc/<pid>.
struct proc_reading {
    std::uint64_t rss_bytes = 0;
    std::uint64_t cpu_ticks = 0;    ///< utime + stime, in clock ticks (sysconf(_SC_CLK_TCK))
    std::uint64_t start_ticks = 0;  ///< start time after boot: tells a reused pid from the process first seen
    std::uint32_t open_fds = 0;
    std::uint32_t threads = 0;
};

inline long clock_ticks_per_second() noexcept {
    static const long ticks = [] {
        const long t = ::sysconf(_SC_CLK_TCK);
        return t > 0 ? t : 100;
    }();
    return ticks;
}

inline std::uint64_t page_size() noexcept {
    static const std::uint64_t size = [] {
        const long s = ::sysconf(_SC_PAGESIZE);
        return s > 0 ? static_cast<std::uint64_t>(s) : 4096u;
    }();
    return size;
}

/// Reads a small file into buf; returns its length, or -1 with errno set.
inline ssize_t read_small_file(const char* path, char* buf, std::size_t cap) noexcept {
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

/// Counts the entries of /proc/<pid>/fd. nullopt: the process is gone.
/// A directory we may not read (another user's process) counts as 0.
inline std::optional<std::uint32_t> count_open_fds(pid_t pid) noexcept {
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

/// Reads /proc/<pid>/stat and /proc/<pid>/fd. nullopt when the process is
/// gone, is a zombie, or cannot be read.
///
/// RSS and the thread count come from stat's `rss` and `num_threads` fields:
/// the same kernel counters as VmRSS and Threads in /proc/<pid>/status (and
/// statm's resident), read with one small file instead of two.
inline std::optional<proc_reading> read_proc(pid_t pid) noexcept {
    if (pid <= 0) return std::nullopt;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    char buf[1024];  // stat is one line of ~52 numbers; comm is at most 16 bytes
    const ssize_t len = read_small_file(path, buf, sizeof buf - 1);
    if (len <= 0) return std::nullopt;
    buf[len] = '\0';

    // "pid (comm) state ppid ..."; comm may contain spaces and ')', so look for the last one.
    char* p = nullptr;
    for (ssize_t i = len - 1; i >= 0; --i) {
        if (buf[i] == ')') {
            p = buf + i + 1;
            break;
        }
    }
    if (!p || p[0] != ' ' || p[1] == '\0') return std::nullopt;
    const char state = p[1];
    if (state == 'Z' || state == 'X' || state == 'x') return std::nullopt;  // dead: nothing left to measure
    p += 2;

    // Fields 4..24 (1-based, see proc(5)): utime 14, stime 15, num_threads 20, starttime 22, rss 24.
    long long field[25] = {};
    for (int i = 4; i <= 24; ++i) {
        char* end = nullptr;
        field[i] = std::strtoll(p, &end, 10);
        if (end == p) return std::nullopt;
        p = end;
    }
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
