// Quoting a peer's bytes in an error message or a report, bounded and valid text.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/json_chars.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// At most `n` bytes of `s`, for a message: valid UTF-8 is kept (never cut
/// inside a character), control characters become spaces, and bytes that are
/// not UTF-8 are written as \xNN, so messages and reports stay valid text.
MCP_LOADTEST_DECL std::string truncate_for_message(std::string_view s, std::size_t n = 512);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/text/impl/truncate_for_message.ipp>
#endif
