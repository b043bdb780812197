// The Linux backend of detail/os/gdb_backtrace.hpp: gdb started with
// posix_spawn, read through a pipe with poll() until its deadline.
#pragma once

#include <mcp_loadtest/detail/os/gdb_backtrace.hpp>

#if MCP_LOADTEST_OS_LINUX

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL const char* native_stacks_unavailable() noexcept { return nullptr; }

MCP_LOADTEST_DECL std::string find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!dirs.empty()) {
        const auto colon = dirs.find(':');
        std::string candidate(dirs.substr(0, colon));
        dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
        if (candidate.empty()) candidate = ".";
        candidate += "/";
        candidate += name;
        struct stat st{};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

MCP_LOADTEST_DECL char process_state(pid_t pid) {
    if (const auto id = read_proc_identity(pid)) return id->state;
    return '?';
}

MCP_LOADTEST_DECL bool any_thread_stopped(pid_t pid) {
    for (pid_t tid : thread_ids(pid)) {
        std::string stat;
        if (!read_task_file(pid, tid, "stat", stat)) continue;
        const auto close = stat.rfind(')');
        if (close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'T' || stat[close + 2] == 't'))
            return true;
    }
    return false;
}

MCP_LOADTEST_DECL gdb_run run_gdb_backtrace(const std::string& gdb, pid_t pid, std::chrono::milliseconds budget) {
    using clock = std::chrono::steady_clock;
    gdb_run r;
    const auto deadline = clock::now() + budget;
    const bool stopped_before = any_thread_stopped(pid);

    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        r.output = std::string("cannot create a pipe for gdb: ") + std::strerror(errno);
        return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attr);
    ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
    sigset_t defaults, empty;
    sigemptyset(&defaults);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) sigaddset(&defaults, s);
    sigemptyset(&empty);
    ::posix_spawnattr_setsigdefault(&attr, &defaults);
    ::posix_spawnattr_setsigmask(&attr, &empty);
    ::posix_spawnattr_setpgroup(&attr, 0);  // its own group: a kill at the deadline reaches all of it
    ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    const std::string pid_text = std::to_string(pid);
    // -nx: no user init files; debuginfod off: never fetch symbols over the network (it can take minutes).
    std::vector<std::string> args = {gdb, "-nx", "-batch", "-iex", "set debuginfod enabled off", "-p", pid_text,
                                     "-ex", "thread apply all bt"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // LC_ALL=C: messages in English, which the evidence quotes.
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, "LC_ALL=", 7) != 0) env_strings.emplace_back(*e);
    env_strings.emplace_back("LC_ALL=C");
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    pid_t child = -1;
    const int err = ::posix_spawn(&child, gdb.c_str(), &actions, &attr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
    ::close(out[1]);
    if (err != 0) {
        ::close(out[0]);
        r.output = "cannot start " + gdb + ": " + std::strerror(err);
        return r;
    }

    constexpr std::size_t max_output = 1 << 20;
    char buf[8192];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            break;
        }
        pollfd p{out[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;  // the deadline is checked above
        const ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: gdb closed its output (it is exiting)
        if (r.output.size() < max_output) r.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    if (r.timed_out) ::kill(-child, SIGKILL);
    // gdb has closed its output or been killed: it exits promptly. Reap it, boundedly.
    const auto reap_until = clock::now() + std::chrono::seconds(2);
    for (;;) {
        int status = 0;
        const pid_t w = ::waitpid(child, &status, WNOHANG);
        if (w == child) {
            if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
            break;
        }
        if (w < 0 && errno != EINTR) break;
        if (clock::now() >= reap_until) {
            ::kill(-child, SIGKILL);
            while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }

    // Detaching resumes the threads; give the kernel a moment, then make sure.
    if (!stopped_before) {
        for (int i = 0; i < 50 && any_thread_stopped(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (any_thread_stopped(pid)) {
            r.left_stopped = true;
            ::kill(pid, SIGCONT);
            for (int i = 0; i < 50 && any_thread_stopped(pid); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    r.state_after = process_state(pid);
    return r;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
