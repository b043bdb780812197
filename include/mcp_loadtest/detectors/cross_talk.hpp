// The cross-talk check (docs/detectors.md#cross-talk): N distinct calls made at
// once (release_together() across open_sessions()), each reply checked against
// its own request, by default against the same call made alone beforehand (a
// sequential oracle; a sample of those calls is made twice, so replies that are
// not reproducible at all give "indeterminate", never a false alarm), or by a
// user predicate. A wrong reply is attributed to the request whose data it
// carries when that can be told (detail/detectors/cross_talk_attribution.hpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/detectors/race_check.hpp>  // json_pointer_list, detail::canonical_response
#include <mcp_loadtest/sessions.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct cross_talk_options {
    std::size_t calls = 20;     ///< distinct concurrent calls: generator(0) .. generator(calls - 1)
    std::size_t sessions = 1;   ///< call i goes to session i % sessions (each stdio session is its own process)
    /// Sequential calls made a second time (spread over the requests) to see
    /// whether replies are reproducible at all; 0 trusts the oracle blindly.
    std::size_t reproducibility_checks = 3;
    call_options call{.timeout = std::chrono::seconds(10)};
    /// JSON pointers into the result removed before comparing (timestamps, nonces...).
    json_pointer_list ignore_paths{};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<cross_talk_options>);

enum class cross_talk_verdict : std::uint8_t {
    isolated,       ///< every reply matched its own request
    cross_talk,     ///< at least one reply did not (the bug)
    indeterminate,  ///< the replies cannot be judged (not reproducible, or calls failed); passes
};

[[nodiscard]] constexpr std::string_view to_string(cross_talk_verdict v) noexcept {
    switch (v) {
        case cross_talk_verdict::isolated: return "isolated";
        case cross_talk_verdict::cross_talk: return "cross_talk";
        case cross_talk_verdict::indeterminate: return "indeterminate";
    }
    return "unknown";
}

/// A concurrent reply that did not match its own request.
struct cross_talk_mismatch {
    std::size_t index = 0;    ///< the request: generator(index)
    std::size_t session = 0;  ///< index % sessions
    std::uint64_t request_id = 0;
    json arguments = json::object();
    std::string reply;     ///< the reply's result as received (first 2000 characters)
    std::string expected;  ///< the sequential oracle's result for these arguments (empty with a predicate)
    /// The request whose data the reply carries, when that can be told.
    std::optional<std::size_t> carries_data_of;
    std::string evidence;  ///< how it was told, e.g. "equals request 7's sequential reply"
};

/// Two identical sequential calls that replied differently: the oracle cannot judge.
struct cross_talk_irreproducible {
    std::size_t index = 0;
    json arguments = json::object();
    std::string first_reply, second_reply;
};

/// A call without a reply that can be compared (no reply, or a JSON-RPC error).
struct cross_talk_failure {
    std::size_t index = 0;
    std::uint64_t request_id = 0;
    mcp_loadtest::outcome outcome = outcome::ok;
    std::string description;
};

struct cross_talk_report {
    cross_talk_verdict verdict = cross_talk_verdict::isolated;
    std::string tool;
    std::string checked_by;  ///< "sequential oracle" or "predicate"
    std::size_t calls = 0, sessions = 1;
    std::size_t matched = 0;                 ///< concurrent replies that matched their own request
    std::size_t oracle_calls = 0;            ///< sequential calls made (with the repeats)
    std::size_t reproducibility_checks = 0;  ///< of which repeats
    std::vector<cross_talk_mismatch> mismatches;
    std::size_t attributed = 0;  ///< mismatches whose source request was told
    std::vector<cross_talk_irreproducible> irreproducible;
    std::vector<cross_talk_failure> failures;  ///< concurrent calls without a comparable reply
    std::string reason;                        ///< why indeterminate
    std::chrono::nanoseconds write_spread{0};  ///< first to last concurrent request written
    /// The sequential calls; the concurrent ones; the whole check (with opening and closing the sessions).
    std::chrono::nanoseconds oracle_took{0}, concurrent_took{0}, took{0};

    [[nodiscard]] bool passed() const noexcept { return verdict != cross_talk_verdict::cross_talk; }

    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
};

// ---- JSON (durations as integer nanoseconds) ------------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_mismatch& m);
MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_mismatch& m);
MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_irreproducible& x);
MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_irreproducible& x);
MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_failure& f);
MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_failure& f);
MCP_LOADTEST_DECL void to_json(json& j, const cross_talk_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, cross_talk_report& r);

// ---- the check ------------------------------------------------------------------

/// Makes request i's arguments (a JSON object): `[](std::size_t i) { return mlt::args("user", ...); }`.
template <class G>
concept cross_talk_generator = std::is_invocable_r_v<json, G&, std::size_t>;
/// Says whether a reply belongs to its request: `(const json& arguments, const call_result& reply) -> bool`.
template <class P>
concept cross_talk_predicate = std::is_invocable_r_v<bool, P&, const json&, const call_result&>;

namespace detail {

using cross_talk_predicate_fn = std::function<bool(const json&, const call_result&)>;

MCP_LOADTEST_DECL asio::awaitable<cross_talk_report> start_cross_talk(any_server server, std::string tool,
                                                           const std::function<json(std::size_t)>& generator,
                                                           cross_talk_predicate_fn predicate,
                                                           const cross_talk_options& options, client_options client);

}  // namespace detail

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).

/// `options.calls` distinct calls to `tool` (arguments generator(i)) made at
/// once, each reply checked against the same call made alone beforehand.
template <cross_talk_generator G>
asio::awaitable<cross_talk_report> cross_talk_check(any_server server, std::string tool, G generator,
                                                    cross_talk_options options, client_options client) {
    return detail::start_cross_talk(std::move(server), std::move(tool), std::function<json(std::size_t)>(std::move(generator)),
                                    {}, options, std::move(client));
}
template <cross_talk_generator G>
asio::awaitable<cross_talk_report> cross_talk_check(any_server server, std::string tool, G generator,
                                                    cross_talk_options options = {}) {
    return cross_talk_check(std::move(server), std::move(tool), std::move(generator), options, client_options{});
}

/// The same, each reply judged by `predicate(arguments, reply)` instead of a
/// sequential oracle (for tools whose replies vary, or are costly to repeat).
template <cross_talk_generator G, cross_talk_predicate P>
asio::awaitable<cross_talk_report> cross_talk_check(any_server server, std::string tool, G generator, P predicate,
                                                    cross_talk_options options, client_options client) {
    return detail::start_cross_talk(std::move(server), std::move(tool), std::function<json(std::size_t)>(std::move(generator)),
                                    detail::cross_talk_predicate_fn(std::move(predicate)), options, std::move(client));
}
template <cross_talk_generator G, cross_talk_predicate P>
asio::awaitable<cross_talk_report> cross_talk_check(any_server server, std::string tool, G generator, P predicate,
                                                    cross_talk_options options) {
    return cross_talk_check(std::move(server), std::move(tool), std::move(generator), std::move(predicate), options,
                            client_options{});
}

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/cross_talk.ipp>
#endif
