// Files that are either absent, the old version or the whole new one: written
// to a temporary file in the same directory, then renamed over the target
// (rename(2) replaces atomically within one file system).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// A name for a temporary sibling of `target` that no other writer uses.
MCP_LOADTEST_DECL std::filesystem::path temporary_sibling(const std::filesystem::path& target);

/// Writes `text` to `target` atomically: a reader (or a crash) sees the old file
/// or the new one, never part of it. Throws std::runtime_error saying why not.
MCP_LOADTEST_DECL void write_file_atomically(const std::filesystem::path& target, std::string_view text);

/// Makes `link` a symbolic link to `target` (relative is fine), replacing what
/// was there atomically. Where symbolic links are refused, `link` becomes a
/// copy of the directory `target` (resolved against link's parent).
MCP_LOADTEST_DECL void replace_symlink(const std::filesystem::path& link, const std::filesystem::path& target);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/atomic_file.ipp>
#endif
