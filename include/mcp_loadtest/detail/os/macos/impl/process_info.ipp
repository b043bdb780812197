// The macOS backend of detail/os/process_info.hpp: libproc (proc_pidinfo,
// proc_listpids) and sysctl(KERN_PROCARGS2).
//
// Not compiled or run in CI (no macOS machine): written against Apple's
// documented <libproc.h> and <sys/sysctl.h>, untested.
#pragma once

#include <mcp_loadtest/detail/os/process_info.hpp>

#if MCP_LOADTEST_OS_MACOS

#include <cerrno>
#include <csignal>
#include <cstring>
#include <libproc.h>
#include <mach-o/dyld.h>
#include <mach/mach_time.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/time.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

namespace macos_proc {

// proc_taskinfo's CPU times are in Mach absolute time units (nanoseconds on
// Intel, not on Apple silicon).
inline std::chrono::nanoseconds mach_to_ns(std::uint64_t t) noexcept {
    static const mach_timebase_info_data_t base = [] {
        mach_timebase_info_data_t b{};
        if (::mach_timebase_info(&b) != KERN_SUCCESS || b.denom == 0) b = {1, 1};
        return b;
    }();
    return std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(t) * base.numer / base.denom));
}

inline bool bsd_info(pid_t pid, proc_bsdinfo& out) noexcept {
    return pid > 0 && ::proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &out, PROC_PIDTBSDINFO_SIZE) == PROC_PIDTBSDINFO_SIZE;
}

inline char state_of(const proc_bsdinfo& b) noexcept {
    switch (b.pbi_status) {
        case SZOMB: return 'Z';
        case SSTOP: return 'T';
        case SRUN: return 'R';
        default: return 'S';
    }
}

// Microseconds since the epoch: tells a reused pid apart.
inline std::uint64_t start_of(const proc_bsdinfo& b) noexcept {
    return static_cast<std::uint64_t>(b.pbi_start_tvsec) * 1000000u + static_cast<std::uint64_t>(b.pbi_start_tvusec);
}

// proc_listpids() into a vector: `type` PROC_ALL_PIDS or PROC_PPID_ONLY (with `arg` the parent).
inline std::vector<pid_t> list_pids(std::uint32_t type, std::uint32_t arg) {
    std::vector<pid_t> pids;
    for (int attempt = 0; attempt < 4; ++attempt) {
        const int bytes = ::proc_listpids(type, arg, nullptr, 0);
        if (bytes <= 0) return {};
        pids.resize(static_cast<std::size_t>(bytes) / sizeof(pid_t) + 64);  // room for a few more
        const int got = ::proc_listpids(type, arg, pids.data(), static_cast<int>(pids.size() * sizeof(pid_t)));
        if (got <= 0) return {};
        const std::size_t n = static_cast<std::size_t>(got) / sizeof(pid_t);
        if (n < pids.size()) {
            pids.resize(n);
            std::erase(pids, 0);
            return pids;
        }
    }
    return {};
}

}  // namespace macos_proc

MCP_LOADTEST_DECL std::optional<proc_identity> read_proc_identity(pid_t pid) noexcept {
    proc_bsdinfo b{};
    if (!macos_proc::bsd_info(pid, b)) return std::nullopt;
    proc_identity id;
    id.parent = static_cast<pid_t>(b.pbi_ppid);
    id.process_group = static_cast<pid_t>(b.pbi_pgid);
    const pid_t sid = ::getsid(pid);
    id.session = sid > 0 ? sid : 0;
    id.state = macos_proc::state_of(b);
    id.start_ticks = macos_proc::start_of(b);
    return id;
}

MCP_LOADTEST_DECL std::vector<pid_t> children_of(pid_t pid) {
    if (pid <= 0) return {};
    return macos_proc::list_pids(PROC_PPID_ONLY, static_cast<std::uint32_t>(pid));
}

MCP_LOADTEST_DECL std::optional<proc_reading> read_proc(pid_t pid) noexcept {
    proc_bsdinfo b{};
    if (!macos_proc::bsd_info(pid, b) || b.pbi_status == SZOMB) return std::nullopt;
    proc_taskinfo t{};
    if (::proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &t, PROC_PIDTASKINFO_SIZE) != PROC_PIDTASKINFO_SIZE) return std::nullopt;
    proc_reading r;
    r.rss_bytes = t.pti_resident_size;
    r.cpu_time = macos_proc::mach_to_ns(t.pti_total_user + t.pti_total_system);
    r.threads = static_cast<std::uint32_t>(t.pti_threadnum > 0 ? t.pti_threadnum : 0);
    r.start_ticks = macos_proc::start_of(b);
    const int fd_bytes = ::proc_pidinfo(pid, PROC_PIDLISTFDS, 0, nullptr, 0);
    if (fd_bytes < 0) return std::nullopt;  // exited between the reads
    // The size asked for is an upper bound (the kernel adds room); a close count.
    r.open_fds = static_cast<std::uint32_t>(static_cast<std::size_t>(fd_bytes) / PROC_PIDLISTFD_SIZE);
    return r;
}

MCP_LOADTEST_DECL std::vector<proc_entry> snapshot_processes() {
    std::vector<proc_entry> out;
    for (const pid_t pid : macos_proc::list_pids(PROC_ALL_PIDS, 0)) {
        const auto id = read_proc_identity(pid);
        if (!id) continue;  // exited meanwhile, or not readable
        out.push_back({pid, id->parent, id->process_group, id->session, id->state, id->start_ticks});
    }
    return out;
}

MCP_LOADTEST_DECL std::string command_line(pid_t pid, std::size_t max_chars) {
    // KERN_PROCARGS2: argc (an int), the executable's path, NUL padding, then argc NUL-terminated arguments.
    int mib[3] = {CTL_KERN, KERN_PROCARGS2, static_cast<int>(pid)};
    std::size_t size = 0;
    std::vector<std::string> args;
    if (::sysctl(mib, 3, nullptr, &size, nullptr, 0) == 0 && size > sizeof(int)) {
        std::string buf(size, '\0');
        if (::sysctl(mib, 3, buf.data(), &size, nullptr, 0) == 0 && size > sizeof(int)) {
            int argc = 0;
            std::memcpy(&argc, buf.data(), sizeof argc);
            std::size_t i = sizeof argc;
            while (i < size && buf[i] != '\0') ++i;  // the executable's path
            while (i < size && buf[i] == '\0') ++i;  // its padding
            for (int a = 0; a < argc && i < size; ++a) {
                const std::size_t len = ::strnlen(buf.data() + i, size - i);
                args.emplace_back(buf.data() + i, len);
                i += len + 1;
            }
        }
    }
    std::string out = join_command(args, max_chars);
    if (out.empty()) {
        char name[2 * MAXCOMLEN + 1] = {};
        if (::proc_name(pid, name, sizeof name) > 0) out = std::string("[") + name + "]";
    }
    return out;
}

MCP_LOADTEST_DECL pid_t this_process_id() noexcept { return ::getpid(); }

MCP_LOADTEST_DECL std::filesystem::path this_process_executable() {
    std::uint32_t size = 0;
    ::_NSGetExecutablePath(nullptr, &size);  // asks for the size it needs
    std::string path(size, '\0');
    if (::_NSGetExecutablePath(path.data(), &size) != 0) return {};
    path.resize(std::strlen(path.c_str()));
    std::error_code ec;
    auto resolved = std::filesystem::weakly_canonical(path, ec);  // the path may hold "..": made absolute
    return ec ? std::filesystem::path(path) : resolved;
}

MCP_LOADTEST_DECL std::chrono::nanoseconds this_process_cpu_time() noexcept {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto tv = [](const timeval& v) { return std::chrono::seconds(v.tv_sec) + std::chrono::microseconds(v.tv_usec); };
    return tv(u.ru_utime) + tv(u.ru_stime);
}

MCP_LOADTEST_DECL std::string signal_name(int signal) {
    // BSD's sys_signame: lower-case names without "SIG".
    if (signal <= 0 || signal >= NSIG) return {};
    std::string name = sys_signame[signal];
    for (char& c : name) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return "SIG" + name;
}

MCP_LOADTEST_DECL bool stderr_is_terminal() noexcept { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_MACOS
