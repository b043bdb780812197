// The protocol fuzzer (docs/protocol-correctness.md#the-fuzzer): raw bytes
// through session::send_raw, an enumerated corpus of malformed envelopes and
// mutations of each tool's arguments derived from its inputSchema; every
// input classified against what JSON-RPC 2.0 and MCP ask for; the server
// restarted after a crash and the campaign continued, within a count and a
// time budget.
//
//     auto report = co_await mcp_loadtest::fuzz(server, {.budget = 20s});
//     MCP_CHECK_FUZZ_CLEAN(report);
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/detectors/fuzz_corpus.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/detectors/schema_arguments.hpp>
#include <mcp_loadtest/fuzz_report.hpp>
#include <mcp_loadtest/session.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct fuzz_options {
    std::uint64_t seed = 20260728;          ///< picks mutation values; the same seed, the same campaign
    std::size_t max_inputs = 1000;          ///< count bound
    std::chrono::milliseconds budget{30000};  ///< time bound for the whole campaign
    /// A reply due within this long, else `no_reply` (the input is a hang).
    std::chrono::milliseconds reply_timeout{2000};
    /// How long a notification is watched for an answer it must not get.
    std::chrono::milliseconds quiet{100};
    std::size_t max_tools = 16;  ///< tools whose arguments are mutated (in listing order)
    bool envelopes = true;       ///< the enumerated corpus of malformed envelopes
    bool schema_mutations = true;  ///< mutations of each tool's arguments from its inputSchema
    /// The tool the envelope corpus calls (a string literal); null: the first listed.
    const char* tool = nullptr;
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<fuzz_options>);

namespace detail {

[[nodiscard]] MCP_LOADTEST_DECL std::string describe_expectation(fuzz_expectation e);

/// Whether a JSON-RPC error `code` is the answer `e` asks for.
[[nodiscard]] constexpr bool expected_code(fuzz_expectation e, std::int64_t code) noexcept {
    switch (e) {
        case fuzz_expectation::parse_error: return code == -32700;
        case fuzz_expectation::invalid_request: return code == -32600;
        case fuzz_expectation::method_not_found: return code == -32601;
        case fuzz_expectation::invalid_params: return code == -32602;
        case fuzz_expectation::invalid_request_or_params: return code == -32600 || code == -32602;
        case fuzz_expectation::any_reply: return true;
        case fuzz_expectation::no_reply: return false;
    }
    return false;
}

/// A malformed answer that repeated the input's own invalid text: an escaped lone
/// surrogate (valid JSON syntax, RFC 8259 §8.2) echoed back as it came.
[[nodiscard]] MCP_LOADTEST_DECL bool echoes_invalid_input(std::string_view input, const call_result& r);

/// The verdict on one answer (before the liveness check that may turn it
/// into crash or unusable). `wrong_id`: a reply arrived under an id the
/// input did not carry (the session recorded it as unknown_response).
[[nodiscard]] MCP_LOADTEST_DECL fuzz_verdict classify_fuzz_answer(fuzz_expectation expect, const call_result& r, bool wrong_id);

/// Inputs interleaved by category, so a campaign cut short by its budget
/// still covers every category.
MCP_LOADTEST_DECL std::vector<fuzz_input> interleave_by_category(std::vector<fuzz_input> inputs);

struct fuzz_job {
    any_server server;
    client_options client;
    fuzz_options o;
    std::optional<session> s;
    fuzz_report report;
    std::uint64_t next_id = 1000000000;  // far above the session's own ids

    MCP_LOADTEST_DECL asio::awaitable<void> restart();

    MCP_LOADTEST_DECL std::vector<fuzz_input> plan(const listing<tool_info>& tools);

    /// Sends one input; returns the finding when the answer is not fine.
    MCP_LOADTEST_DECL asio::awaitable<std::optional<fuzz_finding>> try_input(const fuzz_input& in);

    MCP_LOADTEST_DECL std::uint64_t count_unknown() const;

    MCP_LOADTEST_DECL asio::awaitable<fuzz_report> run();
};

}  // namespace detail

// Overloads, not defaults: a defaulted class-type argument would be a
// temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// Runs a fuzzing campaign against `server` (started, and restarted after
/// each crash, with `client`). Throws connect_error if it cannot start at all.
MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server, fuzz_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server, fuzz_options options);
MCP_LOADTEST_DECL asio::awaitable<fuzz_report> fuzz(any_server server);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/fuzz.ipp>
#endif
