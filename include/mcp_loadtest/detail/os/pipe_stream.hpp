// The Asio objects a transport reads a child's pipes and waits for its exit
// with: pipe_stream (a file descriptor on Linux, an overlapped HANDLE on
// Windows) and exit_watcher (a pidfd; a process handle). Each system's
// definitions are in its folder (linux/pipe_stream.hpp, windows/pipe_stream.hpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>

#include <mcp_loadtest/detail/os/linux/pipe_stream.hpp>
#include <mcp_loadtest/detail/os/windows/pipe_stream.hpp>
