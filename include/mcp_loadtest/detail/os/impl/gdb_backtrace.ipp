// Definitions of detail/os/gdb_backtrace.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/gdb_backtrace.hpp>

namespace mcp_loadtest::detail {

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

MCP_LOADTEST_DECL std::string frame_function(std::string_view line) {
    if (line.empty() || line.front() != '#') return "??";
    line.remove_prefix(1);
    while (!line.empty() && line.front() >= '0' && line.front() <= '9') line.remove_prefix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.rfind("0x", 0) == 0) {
        const auto in = line.find(" in ");
        if (in == std::string_view::npos) return "??";
        line.remove_prefix(in + 4);
    }
    const auto end = line.find_first_of(" (");
    return std::string(line.substr(0, end));
}

MCP_LOADTEST_DECL bool in_c_library_frame(std::string_view line, const std::string& f) {
    if (f.empty() || f == "??" || f.rfind("__", 0) == 0) return true;
    for (const char* where : {"libc.so", "libpthread.so", "ld-linux", " at ./nptl/", " at ../sysdeps/", " at ./misc/",
                              " at ../nptl/", " at ./posix/", " at ./io/", " at ./socket/"})
        if (line.find(where) != std::string_view::npos) return true;
    static constexpr const char* wrappers[] = {
        "do_futex_wait", "futex_wait", "futex_abstimed_wait", "sem_wait", "sem_timedwait", "sem_clockwait",
        "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "pthread_mutex_lock",
        "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_join", "syscall", "read", "write", "readv",
        "writev", "recv", "recvfrom", "recvmsg", "send", "sendto", "sendmsg", "poll", "ppoll", "select", "pselect",
        "epoll_wait", "epoll_pwait", "nanosleep", "clock_nanosleep", "usleep", "sleep", "accept", "accept4",
        "waitpid", "wait4", "waitid", "connect", "pause", "sigsuspend", "sigtimedwait", "sigwait", "flock", "fcntl",
        "fcntl64", "lockf", "msgrcv", "semop", "semtimedop"};
    for (const char* w : wrappers)
        if (f == w) return true;
    return false;
}

MCP_LOADTEST_DECL std::vector<gdb_thread_stack> parse_gdb_threads(const std::string& output) {
    std::vector<gdb_thread_stack> out;
    std::size_t at = 0;
    while (at < output.size()) {
        auto eol = output.find('\n', at);
        if (eol == std::string::npos) eol = output.size();
        const std::string_view line(output.data() + at, eol - at);
        if (line.rfind("Thread ", 0) == 0) {
            gdb_thread_stack t;
            if (const auto lwp = line.find("LWP "); lwp != std::string_view::npos)
                t.tid = static_cast<pid_t>(std::strtol(line.data() + lwp + 4, nullptr, 10));
            t.text.assign(line);
            out.push_back(std::move(t));
        } else if (!out.empty() && !line.empty()) {
            if (line.front() == '#') {
                out.back().functions.push_back(frame_function(line));
                out.back().in_c_library.push_back(in_c_library_frame(line, out.back().functions.back()));
            }
            if (line.front() == '#' || line.front() == ' ') {
                out.back().text += '\n';
                out.back().text.append(line);
            }
        }
        at = eol + 1;
    }
    return out;
}

MCP_LOADTEST_DECL std::string own_top_frame(const gdb_thread_stack& t) {
    for (std::size_t i = 0; i < t.functions.size(); ++i)
        if (!t.in_c_library[i]) return t.functions[i];
    return {};
}

}  // namespace mcp_loadtest::detail
