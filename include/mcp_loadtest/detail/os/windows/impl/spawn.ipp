// Definitions of detail/os/windows/spawn.hpp (Windows only).
#pragma once

#include <mcp_loadtest/detail/os/windows/spawn.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows_command_line.hpp>

#include <algorithm>
#include <atomic>
#include <cwctype>
#include <filesystem>
#include <map>

namespace mcp_loadtest::detail {

namespace windows_spawn {

// "...: <the system's own words> (error N)", for spawn_error messages.
inline std::string last_error_text(DWORD code = ::GetLastError()) {
    wchar_t* text = nullptr;
    const DWORD n = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                         FORMAT_MESSAGE_IGNORE_INSERTS,
                                     nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
    std::string out = n && text ? utf8(std::wstring_view(text, n)) : std::string("unknown error");
    if (text) ::LocalFree(text);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ' || out.back() == '.'))
        out.pop_back();
    return out + " (error " + std::to_string(code) + ")";
}

struct pipe_ends {
    unique_handle ours;    // overlapped, not inherited
    unique_handle theirs;  // synchronous, inheritable
};

// A one-way pipe: `inbound` when this side reads (the child's stdout, stderr).
inline pipe_ends make_pipe(bool inbound, const stdio_server& server) {
    static std::atomic<unsigned> counter{0};
    const std::wstring name = L"\\\\.\\pipe\\mcp-loadtest-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
                              std::to_wstring(counter++);
    pipe_ends p;
    p.ours = unique_handle(::CreateNamedPipeW(
        name.c_str(), (inbound ? PIPE_ACCESS_INBOUND : PIPE_ACCESS_OUTBOUND) | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
        PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 64 * 1024, 64 * 1024, 0, nullptr));
    if (!p.ours)
        throw spawn_error("cannot start server `" + server.command_line() + "`: cannot create a pipe for it: " +
                          last_error_text() + ". Hint: the process may be out of handles.");
    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    p.theirs = unique_handle(::CreateFileW(name.c_str(), inbound ? GENERIC_WRITE : GENERIC_READ, 0, &inherit,
                                           OPEN_EXISTING, 0, nullptr));
    if (!p.theirs)
        throw spawn_error("cannot start server `" + server.command_line() + "`: cannot open its end of a pipe: " +
                          last_error_text() + ".");
    return p;
}

inline unique_handle inheritable_copy(HANDLE h) {
    HANDLE copy = nullptr;
    if (!h || h == INVALID_HANDLE_VALUE ||
        !::DuplicateHandle(::GetCurrentProcess(), h, ::GetCurrentProcess(), &copy, 0, TRUE, DUPLICATE_SAME_ACCESS))
        return {};
    return unique_handle(copy);
}

// Windows' environment names are case-insensitive: keys compared upper-cased.
inline std::wstring upper(std::wstring s) {
    for (auto& c : s) c = static_cast<wchar_t>(std::towupper(c));
    return s;
}

// The child's environment: this process's (unless told not to inherit it) with
// the server's entries added or replacing, as one UTF-16 block.
inline std::map<std::wstring, std::pair<std::wstring, std::wstring>> environment_of(const stdio_server& server) {
    std::map<std::wstring, std::pair<std::wstring, std::wstring>> vars;  // UPPER -> (name, value)
    if (server.inherit_environment) {
        if (wchar_t* block = ::GetEnvironmentStringsW()) {
            for (const wchar_t* p = block; *p; p += std::wcslen(p) + 1) {
                const std::wstring_view kv(p);
                const auto eq = kv.find(L'=', 1);  // "=C:=C:\\dir" entries start with '='
                if (eq == std::wstring_view::npos) continue;
                const std::wstring name(kv.substr(0, eq));
                vars[upper(name)] = {name, std::wstring(kv.substr(eq + 1))};
            }
            ::FreeEnvironmentStringsW(block);
        }
    }
    for (const auto& [k, v] : server.env) vars[upper(utf16(k))] = {utf16(k), utf16(v)};
    return vars;
}

inline std::wstring environment_block(const std::map<std::wstring, std::pair<std::wstring, std::wstring>>& vars) {
    std::wstring block;
    for (const auto& [key, entry] : vars) block += entry.first + L"=" + entry.second + L'\0';
    return block + L'\0';  // sorted by upper-cased name, as CreateProcessW expects
}

inline std::string variable(const std::map<std::wstring, std::pair<std::wstring, std::wstring>>& vars,
                            const wchar_t* name, std::string fallback) {
    const auto it = vars.find(name);
    return it == vars.end() ? fallback : utf8(it->second.second);
}

inline bool is_file(const std::string& path) {
    const DWORD a = ::GetFileAttributesW(utf16(path).c_str());
    return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

}  // namespace windows_spawn

MCP_LOADTEST_DECL windows_child spawn_windows_child(const stdio_server& server, windows_stderr err) {
    using namespace windows_spawn;
    if (server.command.empty())
        throw spawn_error("cannot start server: the command is empty. Hint: set stdio_server.command, "
                          "e.g. stdio_server{\"python\", {\"my_server.py\"}}.");
    const std::string who = "cannot start server `" + server.command_line() + "`: ";
    if (!server.working_dir.empty()) {
        std::error_code ec;
        if (!std::filesystem::is_directory(server.working_dir, ec))
            throw spawn_error(who + "working directory '" + server.working_dir.string() +
                              "' does not exist or is not a directory. Hint: fix stdio_server.working_dir.");
    }

    // The command as a shell finds it: PATH and PATHEXT of the child's environment.
    const auto vars = environment_of(server);
    const std::string path_list = variable(vars, L"PATH", "");
    const std::string pathext = variable(vars, L"PATHEXT", ".COM;.EXE;.BAT;.CMD");
    const auto program = resolve_windows_command(server.command, path_list, pathext, is_file);
    if (!program)
        throw spawn_error(who + "'" + server.command + "' was not found" +
                          (server.command.find_first_of("/\\") == std::string::npos
                               ? " on PATH (" + path_list + ") with any extension of PATHEXT (" + pathext + ")"
                               : std::string(" (nor with any extension of PATHEXT: " + pathext + ")")) +
                          ". Hint: check the spelling, install it, or give its full path.");
    std::string application = *program, line;
    if (is_batch_file(*program)) {
        // A .cmd or .bat file is not an executable: cmd.exe runs it.
        application = variable(vars, L"COMSPEC", "C:\\Windows\\System32\\cmd.exe");
        const auto batch = batch_command_line(application, *program, server.args);
        if (!batch)
            throw spawn_error(who + "'" + *program + "' is a batch file, and cmd.exe would read an argument of it " +
                              "(one holds %, !, a quote or a line break) instead of passing it. Hint: call the " +
                              "program the batch file runs directly (for npx: node and the package's script).");
        line = *batch;
    } else {
        std::vector<std::string> argv{server.command};
        argv.insert(argv.end(), server.args.begin(), server.args.end());
        line = windows_command_line(argv);
    }

    pipe_ends in = make_pipe(/*inbound=*/false, server), out = make_pipe(/*inbound=*/true, server);
    std::optional<pipe_ends> err_pipe;
    unique_handle child_stderr;
    if (err == windows_stderr::pipe) {
        err_pipe = make_pipe(/*inbound=*/true, server);
        child_stderr = std::move(err_pipe->theirs);
    } else if (err == windows_stderr::file) {
        std::error_code ec;
        if (server.stderr_path.has_parent_path()) std::filesystem::create_directories(server.stderr_path.parent_path(), ec);
        SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
        child_stderr = unique_handle(::CreateFileW(server.stderr_path.wstring().c_str(), GENERIC_WRITE,
                                                   FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, CREATE_ALWAYS,
                                                   FILE_ATTRIBUTE_NORMAL, nullptr));
        if (!child_stderr)
            throw spawn_error("cannot open stderr capture file '" + server.stderr_path.string() + "': " +
                              last_error_text() +
                              ". Hint: check that the directory is writable, or leave stderr_path empty to capture "
                              "into memory.");
    } else if (err == windows_stderr::discard) {
        SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
        child_stderr = unique_handle(::CreateFileW(L"NUL", GENERIC_WRITE, FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, nullptr));
    } else {
        child_stderr = inheritable_copy(::GetStdHandle(STD_ERROR_HANDLE));
    }

    // Only the child's three ends are inherited, not every inheritable handle of this process.
    std::vector<HANDLE> inherited{in.theirs.get(), out.theirs.get()};
    if (child_stderr) inherited.push_back(child_stderr.get());
    SIZE_T attr_size = 0;
    ::InitializeProcThreadAttributeList(nullptr, 1, 0, &attr_size);
    std::vector<char> attr_storage(attr_size);
    auto* attrs = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attr_storage.data());
    const bool have_list = ::InitializeProcThreadAttributeList(attrs, 1, 0, &attr_size) &&
                           ::UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherited.data(),
                                                       inherited.size() * sizeof(HANDLE), nullptr, nullptr);

    STARTUPINFOEXW si{};
    si.StartupInfo.cb = sizeof si;
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = in.theirs.get();
    si.StartupInfo.hStdOutput = out.theirs.get();
    si.StartupInfo.hStdError = child_stderr ? child_stderr.get() : nullptr;
    si.lpAttributeList = have_list ? attrs : nullptr;

    std::wstring wide_line = utf16(line);
    std::wstring env = environment_block(vars);
    const std::wstring dir = server.working_dir.empty() ? std::wstring() : server.working_dir.wstring();
    PROCESS_INFORMATION pi{};
    // Suspended until it is in its job, so nothing it starts can escape the job.
    const DWORD flags = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT |
                        (have_list ? EXTENDED_STARTUPINFO_PRESENT : 0);
    const BOOL started = ::CreateProcessW(utf16(application).c_str(), wide_line.data(), nullptr, nullptr, TRUE, flags,
                                          env.data(), dir.empty() ? nullptr : dir.c_str(), &si.StartupInfo, &pi);
    const DWORD create_error = ::GetLastError();
    if (have_list) ::DeleteProcThreadAttributeList(attrs);
    if (!started)
        throw spawn_error(who + "CreateProcessW failed for '" + application + "': " + last_error_text(create_error) +
                          ". Hint: check that it is a Windows program (a script needs its interpreter, e.g. "
                          "python my_server.py).");
    unique_handle process(pi.hProcess), thread(pi.hThread);

    windows_child child;
    child.pid = static_cast<pid_t>(pi.dwProcessId);
    child.job = unique_handle(::CreateJobObjectW(nullptr, nullptr));
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!child.job ||
        !::SetInformationJobObject(child.job.get(), JobObjectExtendedLimitInformation, &limits, sizeof limits) ||
        !::AssignProcessToJobObject(child.job.get(), process.get())) {
        const std::string why = last_error_text();
        ::TerminateProcess(process.get(), 1);
        throw spawn_error(who + "cannot put it in a job object, which ends its whole process tree at close: " + why +
                          ".");
    }
    ::ResumeThread(thread.get());
    child.process = std::move(process);
    child.stdin_write = std::move(in.ours);
    child.stdout_read = std::move(out.ours);
    if (err_pipe) child.stderr_read = std::move(err_pipe->ours);
    return child;  // the child's ends close here, in this process
}

MCP_LOADTEST_DECL bool break_windows_child(const windows_child& child) noexcept {
    return child.pid > 0 && ::GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(child.pid));
}

MCP_LOADTEST_DECL void terminate_windows_job(const windows_child& child, unsigned exit_code) noexcept {
    if (child.job) ::TerminateJobObject(child.job.get(), exit_code);
}

MCP_LOADTEST_DECL std::vector<pid_t> windows_job_processes(const windows_child& child) {
    std::vector<pid_t> out;
    if (!child.job) return out;
    // The list's header, then one ULONG_PTR per process; room for 1024.
    std::vector<char> buffer(sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + 1024 * sizeof(ULONG_PTR));
    auto* list = reinterpret_cast<JOBOBJECT_BASIC_PROCESS_ID_LIST*>(buffer.data());
    if (!::QueryInformationJobObject(child.job.get(), JobObjectBasicProcessIdList, list,
                                     static_cast<DWORD>(buffer.size()), nullptr))
        return out;
    for (DWORD i = 0; i < list->NumberOfProcessIdsInList; ++i)
        out.push_back(static_cast<pid_t>(list->ProcessIdList[i]));
    return out;
}

MCP_LOADTEST_DECL exit_status windows_exit_status(const windows_child& child) noexcept {
    exit_status s;
    DWORD code = 0;
    // Signalled, not "code != STILL_ACTIVE": a program may exit with 259 itself.
    if (!child.process || ::WaitForSingleObject(child.process.get(), 0) != WAIT_OBJECT_0 ||
        !::GetExitCodeProcess(child.process.get(), &code))
        return s;
    s.exited = true;
    s.code = static_cast<int>(code);
    return s;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
