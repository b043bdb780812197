// End-of-run audit shared by the test mains: no server process may outlive
// the run, and no file descriptor opened during it may still be open (Linux: the
// descriptors are read from /proc; Windows: the process audit only, see open_fds()).
#pragma once

#include <mcp_loadtest/process_audit.hpp>

#include <iostream>
#include <map>
#include <string>

#if defined(_WIN32)
#include <cstdio>
#include <fcntl.h>
#include <io.h>
#else
#include <dirent.h>
#include <unistd.h>
#endif

namespace mlt_test {

/// Windows: stdout in binary mode, for a main to call first. In the C runtime's text mode
/// each line ends in "\r\n", and CTest's discovery (catch_discover_tests,
/// gtest_discover_tests), which splits the test list on "\n", would register every name
/// with a trailing "\r". Elsewhere nothing to do.
inline void binary_stdout() {
#if defined(_WIN32)
    _setmode(_fileno(stdout), _O_BINARY);
#endif
}

/// fd -> what it points at, for this process. Windows: none listed. There is no /proc, the
/// library's pipes and sockets are HANDLEs rather than C runtime descriptors, and Wine's
/// GetProcessHandleCount answers 0; the process audit of report_leaks() still runs.
inline std::map<int, std::string> open_fds() {
#if defined(_WIN32)
    return {};
#else
    std::map<int, std::string> fds;
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir) return fds;
    const int own = ::dirfd(dir);
    while (dirent* e = ::readdir(dir)) {
        if (e->d_name[0] == '.') continue;
        const int fd = std::stoi(e->d_name);
        if (fd == own) continue;
        char target[512] = {};
        const std::string link = std::string("/proc/self/fd/") + e->d_name;
        const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
        fds[fd] = n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "?";
    }
    ::closedir(dir);
    return fds;
#endif
}

/// Prints every leak found since `before`; returns the number found.
inline int report_leaks(const std::map<int, std::string>& before) {
    int leaks = 0;
    for (const auto& p : mcp_loadtest::process_audit::survivors()) {
        std::cerr << "LEAK: server process outlived the tests: " << p.describe() << "\n";
        ++leaks;
    }
    if (const auto n = mcp_loadtest::process_audit::unreaped(); n > 0) {
        std::cerr << "LEAK: " << n << " spawned server(s) never reaped\n";
        ++leaks;
    }
    for (const auto& [fd, target] : open_fds()) {
        if (!before.count(fd)) {
            std::cerr << "LEAK: file descriptor " << fd << " (" << target << ") left open\n";
            ++leaks;
        }
    }
    return leaks;
}

}  // namespace mlt_test
