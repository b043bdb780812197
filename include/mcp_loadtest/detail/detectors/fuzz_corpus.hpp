// The fuzzer's enumerated corpus of malformed envelopes (fuzz.hpp). Each
// input says what JSON-RPC 2.0 and MCP ask a server to answer; where they
// leave a choice (odd but legal ids, batches after 2025-06-18), any
// well-formed reply is accepted and only a crash, a wedge or silence counts.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/fuzz_input.hpp>
#include <mcp_loadtest/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// Every input, in a stable order. `tool` and `valid_arguments` make a
/// well-formed tools/call the inputs then break one part of; requests get
/// ids first_id, first_id + 1, ... unless the id is what is fuzzed.
MCP_LOADTEST_DECL std::vector<fuzz_input> envelope_corpus(std::string_view tool, const json& valid_arguments,
                                               std::uint64_t first_id);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/detectors/impl/fuzz_corpus.ipp>
#endif
