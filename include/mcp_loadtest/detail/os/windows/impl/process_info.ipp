// The Windows backend of detail/os/process_info.hpp: Tool Help snapshots (who is
// whose child, thread counts), PSAPI (working set), GetProcessTimes (CPU time,
// and the creation time that tells a reused process id apart).
#pragma once

#include <mcp_loadtest/detail/os/process_info.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>

#include <psapi.h>
#include <tlhelp32.h>

#include <io.h>
#include <cstdio>
#include <unordered_map>

namespace mcp_loadtest::detail {

namespace windows_process_info {

// FILETIME as one 64-bit count of 100 ns units.
inline std::uint64_t ticks(const FILETIME& t) noexcept {
    return (static_cast<std::uint64_t>(t.dwHighDateTime) << 32) | t.dwLowDateTime;
}

struct times {
    std::uint64_t created = 0;
    std::chrono::nanoseconds cpu{};
};

// Creation time and CPU time of a process still running; nullopt when it has
// exited (its handle may outlive it) or cannot be opened.
inline std::optional<times> process_times(HANDLE process) noexcept {
    if (::WaitForSingleObject(process, 0) != WAIT_TIMEOUT) return std::nullopt;  // exited (or unwaitable)
    FILETIME created{}, exited{}, kernel{}, user{};
    if (!::GetProcessTimes(process, &created, &exited, &kernel, &user)) return std::nullopt;
    return times{ticks(created), std::chrono::nanoseconds((ticks(kernel) + ticks(user)) * 100)};
}

struct entry {
    pid_t pid = 0;
    pid_t parent = 0;
    std::uint32_t threads = 0;
    std::wstring exe;
};

// Every process now, from one Tool Help snapshot.
inline std::vector<entry> every_process() {
    std::vector<entry> out;
    unique_handle snap(::CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0));
    if (!snap) return out;
    PROCESSENTRY32W e{};
    e.dwSize = sizeof e;
    for (BOOL more = ::Process32FirstW(snap.get(), &e); more; more = ::Process32NextW(snap.get(), &e))
        out.push_back({static_cast<pid_t>(e.th32ProcessID), static_cast<pid_t>(e.th32ParentProcessID),
                       static_cast<std::uint32_t>(e.cntThreads), e.szExeFile});
    return out;
}

inline unique_handle open_for_query(pid_t pid) noexcept {
    return unique_handle(::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
}

inline std::uint64_t created_at(pid_t pid) noexcept {
    const auto h = open_for_query(pid);
    if (!h) return 0;
    const auto t = process_times(h.get());
    return t ? t->created : 0;
}

}  // namespace windows_process_info

MCP_LOADTEST_DECL std::optional<proc_reading> read_proc(pid_t pid) noexcept {
    using namespace windows_process_info;
    if (pid <= 0) return std::nullopt;
    const auto h = open_for_query(pid);
    if (!h) return std::nullopt;
    const auto t = process_times(h.get());
    if (!t) return std::nullopt;
    proc_reading r;
    r.cpu_time = t->cpu;
    r.start_ticks = t->created;
    PROCESS_MEMORY_COUNTERS m{};
    m.cb = sizeof m;
    if (::GetProcessMemoryInfo(h.get(), &m, sizeof m)) r.rss_bytes = m.WorkingSetSize;
    DWORD handles = 0;
    if (::GetProcessHandleCount(h.get(), &handles)) r.open_fds = handles;
    try {
        for (const auto& e : every_process())
            if (e.pid == pid) r.threads = e.threads;
    } catch (...) {
        // Out of memory for the snapshot: the thread count stays 0.
    }
    return r;
}

MCP_LOADTEST_DECL std::optional<proc_identity> read_proc_identity(pid_t pid) noexcept {
    using namespace windows_process_info;
    try {
        for (const auto& e : every_process()) {
            if (e.pid != pid) continue;
            const std::uint64_t created = created_at(pid);
            if (created == 0) return std::nullopt;  // exited meanwhile
            proc_identity id;
            // A parent id names a process only while that process is older than its child.
            const std::uint64_t parent_created = created_at(e.parent);
            id.parent = parent_created != 0 && parent_created <= created ? e.parent : 0;
            id.state = 'R';
            id.start_ticks = created;
            return id;
        }
    } catch (...) {
    }
    return std::nullopt;
}

MCP_LOADTEST_DECL std::vector<proc_entry> snapshot_processes() {
    using namespace windows_process_info;
    std::vector<proc_entry> out;
    const auto all = every_process();
    std::unordered_map<pid_t, std::uint64_t> created;
    for (const auto& e : all)
        if (const std::uint64_t c = created_at(e.pid)) created.emplace(e.pid, c);
    for (const auto& e : all) {
        const auto mine = created.find(e.pid);
        if (mine == created.end()) continue;  // exited, or not ours to open
        const auto parent = created.find(e.parent);
        const bool real_parent = parent != created.end() && parent->second <= mine->second;
        out.push_back({e.pid, real_parent ? e.parent : 0, 0, 0, 'R', mine->second});
    }
    return out;
}

MCP_LOADTEST_DECL std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> out;
    if (pid <= 0) return out;
    for (const auto& p : snapshot_processes())
        if (p.parent == pid) out.push_back(p.pid);
    return out;
}

MCP_LOADTEST_DECL std::string command_line(pid_t pid, std::size_t max_chars) {
    using namespace windows_process_info;
    const auto h = open_for_query(pid);
    if (!h) return {};
    std::wstring path(32768, L'\0');  // the longest path Windows has
    DWORD size = static_cast<DWORD>(path.size());
    if (::QueryFullProcessImageNameW(h.get(), 0, path.data(), &size)) {
        path.resize(size);
        return join_command({utf8(path)}, max_chars);
    }
    for (const auto& e : every_process())
        if (e.pid == pid) return "[" + utf8(e.exe) + "]";
    return {};
}

MCP_LOADTEST_DECL pid_t this_process_id() noexcept { return static_cast<pid_t>(::GetCurrentProcessId()); }

MCP_LOADTEST_DECL std::filesystem::path this_process_executable() {
    std::wstring path(32768, L'\0');  // the longest path Windows has
    const DWORD length = ::GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
    if (length == 0 || length >= path.size()) return {};
    path.resize(length);
    return std::filesystem::path(path);
}

MCP_LOADTEST_DECL std::chrono::nanoseconds this_process_cpu_time() noexcept {
    const auto t = windows_process_info::process_times(::GetCurrentProcess());
    return t ? t->cpu : std::chrono::nanoseconds(0);
}

MCP_LOADTEST_DECL std::string signal_name(int) { return {}; }

MCP_LOADTEST_DECL bool stderr_is_terminal() noexcept { return ::_isatty(::_fileno(stderr)) != 0; }

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
