// Definitions of detail/os/child_process.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/child_process.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL unique_fd& unique_fd::operator=(unique_fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
}

MCP_LOADTEST_DECL void unique_fd::reset(int fd) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

MCP_LOADTEST_DECL pipe_pair make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw spawn_error(std::string("cannot create a pipe for the server: ") + std::strerror(errno) +
                          ". Hint: the process may be out of file descriptors (ulimit -n).");
    return {unique_fd(fds[0]), unique_fd(fds[1])};
}

MCP_LOADTEST_DECL int open_pidfd(pid_t pid) noexcept {
#ifdef SYS_pidfd_open
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
        return static_cast<int>(fd);
    }
#endif
    (void)pid;
    return -1;
}

MCP_LOADTEST_DECL std::string describe_spawn_errno(int err, const stdio_server& server) {
    std::string what = "cannot start server `" + server.command_line() + "`: ";
    switch (err) {
        case ENOENT:
            return what + "'" + server.command + "' was not found" +
                   (server.command.find('/') == std::string::npos ? " on PATH" : "") +
                   ". Hint: check the spelling, install it, or give an absolute path.";
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

MCP_LOADTEST_DECL std::vector<std::string> build_environment(const stdio_server& server) {
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

MCP_LOADTEST_DECL spawned_child spawn_child(const stdio_server& server, int stderr_fd) {
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
    ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

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

    pid_t pid = -1;
    const int err = ::posix_spawnp(&pid, server.command.c_str(), &actions, &attr, argv.data(), envp.data());
    if (err != 0) throw spawn_error(describe_spawn_errno(err, server));

    process_audit::record_spawn(pid);

    spawned_child child;
    child.pid = pid;
    child.stdin_write = std::move(in.write_end);
    child.stdout_read = std::move(out.read_end);
    child.pidfd = unique_fd(open_pidfd(pid));
    return child;  // the child's pipe ends close here, in the parent
}

MCP_LOADTEST_DECL exit_status peek_exit(pid_t pid) noexcept {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
        return {};
    exit_status s;
    s.exited = true;
    if (info.si_code == CLD_EXITED) s.code = info.si_status;
    else s.signal = info.si_status;
    return s;
}

MCP_LOADTEST_DECL void signal_group(pid_t pgid, int sig) noexcept {
    if (pgid <= 0) return;
    process_audit::note_descendants(pgid);
    ::kill(-pgid, sig);
    process_audit::signal_escaped(pgid, sig);
}

MCP_LOADTEST_DECL void reap(pid_t pid) noexcept {
    signal_group(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    process_audit::record_reap(pid);
}

MCP_LOADTEST_DECL exit_status kill_and_reap_now(pid_t pid, std::chrono::milliseconds bound) noexcept {
    signal_group(pid, SIGKILL);
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

}  // namespace mcp_loadtest::detail
