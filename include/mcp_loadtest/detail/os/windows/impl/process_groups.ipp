// The Windows backend of detail/os/process_groups.hpp: a server's group is the
// Job Object it was started in (windows/spawn.hpp registers it here).
#pragma once

#include <mcp_loadtest/detail/os/process_groups.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/groups.hpp>

#include <map>
#include <mutex>

namespace mcp_loadtest::detail {

namespace windows_groups {

struct registry {
    std::mutex mutex;
    std::map<pid_t, unique_handle> jobs;  // a duplicate of each group's job handle
};

inline registry& groups() {
    static registry r;
    return r;
}

inline std::vector<pid_t> job_members(HANDLE job) {
    std::vector<pid_t> out;
    std::vector<char> buffer(sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + 1024 * sizeof(ULONG_PTR));
    auto* list = reinterpret_cast<JOBOBJECT_BASIC_PROCESS_ID_LIST*>(buffer.data());
    if (!::QueryInformationJobObject(job, JobObjectBasicProcessIdList, list, static_cast<DWORD>(buffer.size()), nullptr))
        return out;
    for (DWORD i = 0; i < list->NumberOfProcessIdsInList; ++i) out.push_back(static_cast<pid_t>(list->ProcessIdList[i]));
    return out;
}

// A duplicate of the group's job handle (empty when unknown), so it can be used unlocked.
inline unique_handle job_of(pid_t group) {
    auto& r = groups();
    std::lock_guard lock(r.mutex);
    const auto it = r.jobs.find(group);
    HANDLE copy = nullptr;
    if (it == r.jobs.end() ||
        !::DuplicateHandle(::GetCurrentProcess(), it->second.get(), ::GetCurrentProcess(), &copy, 0, FALSE,
                           DUPLICATE_SAME_ACCESS))
        return {};
    return unique_handle(copy);
}

}  // namespace windows_groups

MCP_LOADTEST_DECL void register_group_job(pid_t group, HANDLE job) {
    HANDLE copy = nullptr;
    if (!::DuplicateHandle(::GetCurrentProcess(), job, ::GetCurrentProcess(), &copy, 0, FALSE, DUPLICATE_SAME_ACCESS))
        return;
    auto& r = windows_groups::groups();
    std::lock_guard lock(r.mutex);
    r.jobs[group] = unique_handle(copy);
}

MCP_LOADTEST_DECL std::vector<group_member> members_of_groups(const std::set<pid_t>& groups) {
    std::vector<group_member> out;
    for (const pid_t group : groups) {
        const auto job = windows_groups::job_of(group);
        if (!job) continue;
        for (const pid_t pid : windows_groups::job_members(job.get())) {
            const auto id = read_proc_identity(pid);
            out.push_back({pid, id ? id->parent : 0, group, 'R'});
        }
    }
    return out;
}

MCP_LOADTEST_DECL bool group_exists(pid_t group) noexcept {
    try {
        const auto job = windows_groups::job_of(group);
        return job && !windows_groups::job_members(job.get()).empty();
    } catch (...) {
        return false;
    }
}

MCP_LOADTEST_DECL bool left_group(const proc_identity&, pid_t) noexcept { return false; }

MCP_LOADTEST_DECL void end_group(pid_t group, end_request how) noexcept {
    if (group <= 0) return;
    if (how == end_request::terminate) {
        // The group leader was started with CREATE_NEW_PROCESS_GROUP: a console
        // break reaches it and its console children (when a console is shared).
        (void)::GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(group));
        return;
    }
    try {
        if (const auto job = windows_groups::job_of(group)) ::TerminateJobObject(job.get(), 1);
    } catch (...) {
    }
}

MCP_LOADTEST_DECL void end_process_if_same(pid_t pid, std::uint64_t start_ticks, end_request how) noexcept {
    if (how != end_request::kill || pid <= 0) return;  // Windows has no polite request for one process
    unique_handle process(::OpenProcess(PROCESS_TERMINATE | PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE,
                                        static_cast<DWORD>(pid)));
    if (!process) return;
    // The handle pins the process: its creation time says whether it is still the one seen.
    FILETIME created{}, exited{}, kernel{}, user{};
    if (!::GetProcessTimes(process.get(), &created, &exited, &kernel, &user)) return;
    const std::uint64_t ticks = (static_cast<std::uint64_t>(created.dwHighDateTime) << 32) | created.dwLowDateTime;
    if (ticks == start_ticks) ::TerminateProcess(process.get(), 1);
}

MCP_LOADTEST_DECL void forget_group(pid_t group) noexcept {
    auto& r = windows_groups::groups();
    std::lock_guard lock(r.mutex);
    r.jobs.erase(group);  // the last handle of a kill-on-close job: what is left of the tree ends
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
