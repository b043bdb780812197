// The Unix backend of detail/os/child_process.hpp, for both Linux backends and
// macOS: posix_spawnp into a process group of its own, close-on-exec pipes.
// The Linux backend (MCP_LOADTEST_OS_PIDFD) also opens a pidfd, which becomes
// readable the moment the child exits, without reaping it; the generic POSIX
// backend has none, and its exit_watcher polls waitid() (posix/exit_poller.hpp).
#pragma once

#include <mcp_loadtest/detail/os/child_process.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <spawn.h>
#if MCP_LOADTEST_OS_PIDFD
#include <sys/syscall.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace mcp_loadtest::detail {

namespace unix_spawn {

struct pipe_pair {
    unique_native read_end, write_end;
};

#if !MCP_LOADTEST_OS_PIDFD
// POSIX has no pipe2() before its 2024 edition (macOS has none): a pipe is made
// close-on-exec by fcntl() after pipe(). This lock keeps the library's own
// spawns out of that window, so no other server inherits a pipe end (which
// would keep it open, and a server from ever reading EOF).
inline std::mutex& descriptor_lock() {
    static std::mutex m;
    return m;
}
#endif

inline pipe_pair make_pipe() {
    int fds[2];
#if MCP_LOADTEST_OS_PIDFD
    const bool made = ::pipe2(fds, O_CLOEXEC) == 0;
#else
    bool made;
    {
        const std::lock_guard<std::mutex> lock(descriptor_lock());
        made = ::pipe(fds) == 0;
        if (made) {
            ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
            ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
        }
    }
#endif
    if (!made)
        throw spawn_error(std::string("cannot create a pipe for the server: ") + std::strerror(errno) +
                          ". Hint: the process may be out of file descriptors (ulimit -n).");
    return {unique_native(fds[0]), unique_native(fds[1])};
}

// The child's pidfd (the Linux backend); -1 where there is none (the generic POSIX backend, Linux < 5.3).
inline int open_pidfd(pid_t pid) noexcept {
#if MCP_LOADTEST_OS_PIDFD && defined(SYS_pidfd_open)
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
        return static_cast<int>(fd);
    }
#endif
    (void)pid;
    return -1;
}

inline std::string describe_spawn_errno(int err, const stdio_server& server) {
    std::string what = "cannot start server `" + server.command_line() + "`: ";
    switch (err) {
        case ENOENT:
            if (server.command.find('/') != std::string::npos)
                return what + "'" + server.command + "' was not found. Hint: check the path.";
            else {
                const auto own = server.env.find("PATH");
                const char* inherited = std::getenv("PATH");
                return what + "'" + server.command + "' was not found on PATH (" +
                       (own != server.env.end() ? own->second : inherited ? inherited : "") +
                       "). Hint: check the spelling, install it, or give an absolute path.";
            }
        case EACCES:
            return what + "permission denied executing '" + server.command +
                   "'. Hint: chmod +x it, or run it through its interpreter (e.g. python3 script.py).";
        case ENOEXEC:
            return what + "'" + server.command +
                   "' is not an executable format. Hint: add a #! line or run it through its interpreter.";
        default:
            return what + std::strerror(err);
    }
}

// "KEY=VALUE" strings: the inherited environment with the server's entries applied.
inline std::vector<std::string> build_environment(const stdio_server& server) {
    std::vector<std::string> out;
    if (server.inherit_environment) {
        for (char** e = environ; e && *e; ++e) {
            const std::string_view kv(*e);
            const auto eq = kv.find('=');
            const std::string key(kv.substr(0, eq));
            if (!server.env.count(key)) out.emplace_back(kv);
        }
    }
    for (const auto& [k, v] : server.env) out.push_back(k + "=" + v);
    return out;
}

// The child's stderr: -1 to inherit this process's.
inline unique_native stderr_for_child(const stdio_server& server, child_stderr err, unique_native& pipe_read) {
    switch (err) {
        case child_stderr::inherit:
            return {};
        case child_stderr::discard:
            return unique_native(::open("/dev/null", O_WRONLY | O_CLOEXEC));
        case child_stderr::pipe: {
            auto p = make_pipe();
            pipe_read = std::move(p.read_end);
            return std::move(p.write_end);
        }
        case child_stderr::file: {
            std::error_code ec;
            if (server.stderr_path.has_parent_path()) std::filesystem::create_directories(server.stderr_path.parent_path(), ec);
            unique_native fd(::open(server.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
            if (!fd)
                throw spawn_error("cannot open stderr capture file '" + server.stderr_path.string() + "': " +
                                  std::strerror(errno) +
                                  ". Hint: check that the directory is writable, or leave stderr_path empty to "
                                  "capture into memory.");
            return fd;
        }
    }
    return {};
}

}  // namespace unix_spawn

MCP_LOADTEST_DECL spawned_child spawn_child(const stdio_server& server, child_stderr where) {
    using namespace unix_spawn;
    if (server.command.empty())
        throw spawn_error("cannot start server: the command is empty. Hint: set stdio_server.command, "
                          "e.g. stdio_server{\"python3\", {\"my_server.py\"}}.");
    if (!server.working_dir.empty()) {
        std::error_code ec;
        if (!std::filesystem::is_directory(server.working_dir, ec))
            throw spawn_error("cannot start server `" + server.command_line() + "`: working directory '" +
                              server.working_dir.string() +
                              "' does not exist or is not a directory. Hint: fix stdio_server.working_dir.");
    }

    unique_native stderr_read;
    const unique_native stderr_fd_owned = stderr_for_child(server, where, stderr_read);
    const int stderr_fd = stderr_fd_owned ? stderr_fd_owned.get() : -1;
    pipe_pair in = make_pipe(), out = make_pipe();

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attr);
    struct cleanup_t {
        posix_spawn_file_actions_t* a;
        posix_spawnattr_t* t;
        ~cleanup_t() {
            ::posix_spawn_file_actions_destroy(a);
            ::posix_spawnattr_destroy(t);
        }
    } cleanup{&actions, &attr};

    ::posix_spawn_file_actions_adddup2(&actions, in.read_end.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out.write_end.get(), STDOUT_FILENO);
    if (stderr_fd >= 0) ::posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
    if (!server.working_dir.empty())
        ::posix_spawn_file_actions_addchdir_np(&actions, server.working_dir.c_str());

    // Own process group, default signal dispositions (the test process may
    // ignore SIGPIPE; the server must not inherit that), nothing blocked.
    sigset_t defaults, empty;
    sigemptyset(&defaults);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM})
        sigaddset(&defaults, s);
    sigemptyset(&empty);
    ::posix_spawnattr_setsigdefault(&attr, &defaults);
    ::posix_spawnattr_setsigmask(&attr, &empty);
    ::posix_spawnattr_setpgroup(&attr, 0);
    int flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_CLOEXEC_DEFAULT
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;  // macOS: the child gets the three descriptors above and nothing else
#endif
    ::posix_spawnattr_setflags(&attr, static_cast<short>(flags));

    std::vector<std::string> env_strings = build_environment(server);
    std::vector<char*> envp;
    envp.reserve(env_strings.size() + 1);
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::vector<std::string> argv_strings;
    argv_strings.reserve(server.args.size() + 1);
    argv_strings.push_back(server.command);
    for (const auto& a : server.args) argv_strings.push_back(a);
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);

    // A bare name is looked up on the PATH the server gets (stdio_server::env may
    // set it), as a shell, Node and Python do; posix_spawnp would use this process's.
    std::string program = server.command;
    if (program.find('/') == std::string::npos) {
        if (const auto it = server.env.find("PATH"); it != server.env.end()) {
            for (std::size_t from = 0; from <= it->second.size();) {
                const auto colon = std::min(it->second.find(':', from), it->second.size());
                const std::string dir = it->second.substr(from, colon - from);
                const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + server.command;
                if (::access(candidate.c_str(), X_OK) == 0) {
                    program = candidate;
                    break;
                }
                from = colon + 1;
            }
        }
    }
    pid_t pid = -1;
#if MCP_LOADTEST_OS_PIDFD
    const int err = ::posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
#else
    int err;
    {
        const std::lock_guard<std::mutex> lock(descriptor_lock());  // no pipe is between pipe() and fcntl() now
        err = ::posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
    }
#endif
    if (err != 0) throw spawn_error(describe_spawn_errno(err, server));

    process_audit::record_spawn(pid);

    spawned_child child;
    child.pid = pid;
    child.stdin_write = std::move(in.write_end);
    child.stdout_read = std::move(out.read_end);
    child.stderr_read = std::move(stderr_read);
    child.exit_handle = unique_native(open_pidfd(pid));
    return child;  // the child's ends close here, in the parent
}

MCP_LOADTEST_DECL exit_status peek_exit(pid_t pid) noexcept {
    // POSIX waitid() on this pid only, WNOWAIT: the same on both backends.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
        return {};
    exit_status s;
    s.exited = true;
    if (info.si_code == CLD_EXITED) s.code = info.si_status;
    else s.signal = info.si_status;
    return s;
}

MCP_LOADTEST_DECL void signal_group(pid_t pgid, end_request how) noexcept {
    if (pgid <= 0) return;
    process_audit::note_descendants(pgid);
    end_group(pgid, how);
    process_audit::signal_escaped(pgid, how);
}

MCP_LOADTEST_DECL void reap(pid_t pid) noexcept {
    signal_group(pid, end_request::kill);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    process_audit::record_reap(pid);
}

MCP_LOADTEST_DECL exit_status kill_and_reap_now(pid_t pid, std::chrono::milliseconds bound) noexcept {
    signal_group(pid, end_request::kill);
    ::kill(pid, SIGKILL);
    const auto until = std::chrono::steady_clock::now() + bound;
    for (;;) {
        exit_status s = peek_exit(pid);
        if (s.exited) {
            reap(pid);
            return s;
        }
        if (std::chrono::steady_clock::now() >= until) return s;  // left for process_audit to report
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

MCP_LOADTEST_DECL void kill_process(pid_t pid) noexcept {
    if (pid > 0) ::kill(pid, SIGKILL);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
