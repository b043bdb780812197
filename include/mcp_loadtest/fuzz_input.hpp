// One input of a fuzzing campaign (fuzz.hpp) and what a correct server does
// with it.
#pragma once

#include <mcp_loadtest/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mcp_loadtest {

/// What JSON-RPC 2.0 and MCP ask a server to answer.
enum class fuzz_expectation : std::uint8_t {
    parse_error,       ///< -32700, id null: the bytes are not JSON
    invalid_request,   ///< -32600: JSON, but not a valid request object
    method_not_found,  ///< -32601
    invalid_params,    ///< -32602, or for tools/call an isError result (both are what SDKs do)
    /// -32600 or -32602, where JSON-RPC and MCP leave the choice (`"params": null`: not a
    /// structured value to JSON-RPC, params of the wrong shape to MCP), or an isError result
    invalid_request_or_params,
    no_reply,          ///< a notification or a response: nothing must come back
    any_reply,         ///< legal but unusual: any well-formed reply under the input's id
};

struct fuzz_input {
    std::string category;  ///< "json", "envelope", "id", "method", "params", "arguments", ...
    std::string name;      ///< unique within the corpus, e.g. "arguments is null"
    std::string bytes;     ///< exactly what is written (the transport adds only its framing)
    fuzz_expectation expect = fuzz_expectation::any_reply;
    std::optional<json> reply_id;  ///< the id a reply should carry (null for unreadable input)
    bool needs_fresh_session = false;  ///< sent on a connection that never sent initialize
};

}  // namespace mcp_loadtest
