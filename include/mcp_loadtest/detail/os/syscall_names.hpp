// The names of the system calls a blocked thread is commonly found in, by
// number, for the architecture this library is compiled for (x86_64 or
// aarch64; a server under test runs on the same machine). Numbers from the
// kernel's asm/unistd_64.h and asm-generic/unistd.h.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <string>

namespace mcp_loadtest::detail {

struct syscall_name_entry {
    long number;
    const char* name;
};

// clang-format off
#if defined(__x86_64__)
inline constexpr syscall_name_entry known_syscalls[] = {
    {0, "read"}, {1, "write"}, {2, "open"}, {3, "close"}, {7, "poll"}, {16, "ioctl"}, {17, "pread64"},
    {18, "pwrite64"}, {19, "readv"}, {20, "writev"}, {23, "select"}, {24, "sched_yield"}, {34, "pause"},
    {35, "nanosleep"}, {40, "sendfile"}, {42, "connect"}, {43, "accept"}, {44, "sendto"}, {45, "recvfrom"},
    {46, "sendmsg"}, {47, "recvmsg"}, {61, "wait4"}, {65, "semop"}, {70, "msgrcv"}, {72, "fcntl"}, {73, "flock"},
    {74, "fsync"}, {75, "fdatasync"}, {128, "rt_sigtimedwait"}, {130, "rt_sigsuspend"}, {202, "futex"},
    {208, "io_getevents"}, {219, "restart_syscall"}, {220, "semtimedop"}, {230, "clock_nanosleep"},
    {232, "epoll_wait"}, {247, "waitid"}, {257, "openat"}, {270, "pselect6"}, {271, "ppoll"}, {275, "splice"},
    {281, "epoll_pwait"}, {288, "accept4"}, {426, "io_uring_enter"}, {441, "epoll_pwait2"}, {449, "futex_waitv"},
};
#elif defined(__aarch64__)
inline constexpr syscall_name_entry known_syscalls[] = {
    {4, "io_getevents"}, {22, "epoll_pwait"}, {25, "fcntl"}, {29, "ioctl"}, {32, "flock"}, {56, "openat"},
    {57, "close"}, {63, "read"}, {64, "write"}, {65, "readv"}, {66, "writev"}, {67, "pread64"}, {68, "pwrite64"},
    {71, "sendfile"}, {72, "pselect6"}, {73, "ppoll"}, {76, "splice"}, {82, "fsync"}, {83, "fdatasync"},
    {95, "waitid"}, {98, "futex"}, {101, "nanosleep"}, {115, "clock_nanosleep"}, {124, "sched_yield"},
    {128, "restart_syscall"}, {133, "rt_sigsuspend"}, {137, "rt_sigtimedwait"}, {188, "msgrcv"},
    {192, "semtimedop"}, {193, "semop"}, {202, "accept"}, {203, "connect"}, {206, "sendto"}, {207, "recvfrom"},
    {211, "sendmsg"}, {212, "recvmsg"}, {242, "accept4"}, {260, "wait4"}, {426, "io_uring_enter"},
    {441, "epoll_pwait2"}, {449, "futex_waitv"},
};
#else
inline constexpr syscall_name_entry known_syscalls[] = {{-2, ""}};  // numbers differ: shown as "syscall N"
#endif
// clang-format on

/// "futex", or "syscall 999" for a number this table does not know.
[[nodiscard]] MCP_LOADTEST_DECL std::string syscall_name(long number);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/syscall_names.ipp>
#endif
