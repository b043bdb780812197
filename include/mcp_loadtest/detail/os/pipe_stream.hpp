// The Asio objects a transport reads a child's pipes and waits for its exit
// with: pipe_stream (a file descriptor on Unix, an overlapped HANDLE on
// Windows) and exit_watcher (a pidfd on Linux, waitid() polling with the generic
// POSIX backend; a process handle on Windows). Each system's definitions are in
// its folder (posix/pipe_stream.hpp, windows/pipe_stream.hpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>

#include <mcp_loadtest/detail/os/posix/pipe_stream.hpp>
#include <mcp_loadtest/detail/os/windows/pipe_stream.hpp>
