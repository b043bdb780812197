// The payload sweep's mechanics (detectors/payload_sweep.hpp): the size ladder,
// the payload text, the arguments around it, and the echo check.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// min, min*growth, min*growth², ... below max, then max itself.
MCP_LOADTEST_DECL std::vector<std::size_t> payload_ladder(std::size_t min_bytes, std::size_t max_bytes, double growth);

/// `bytes` letters and digits from a fixed pseudo-random sequence: nothing to
/// escape in JSON, and no period, so a truncated, reordered or corrupted echo
/// cannot pass for the original.
MCP_LOADTEST_DECL std::string payload_text(std::size_t bytes);

/// The base arguments' JSON text with `name` set to `payload` (which needs no
/// escaping), written directly: a 15 MiB string is never copied into a json value.
MCP_LOADTEST_DECL std::string arguments_with_payload(const std::string& base_object_text, std::string_view name,
                                          std::string_view payload);

/// The base arguments as JSON object text, without `name` (the sweep sets it).
MCP_LOADTEST_DECL std::string base_arguments_text(const json& base, std::string_view name);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/detectors/impl/payload_text.ipp>
#endif
