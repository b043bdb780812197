// The race check (docs/load-testing.md#the-race-check): `concurrent` identical
// calls at once across the sessions (concurrently()), the responses compared
// after key-sorted canonicalisation, divergent groups reported with counts.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/sessions.hpp>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

/// Up to 16 JSON pointers, e.g. `{"/timestamp", "/content/0/id"}`. Trivially
/// copyable on purpose, so option structs holding it are safe to write inline
/// inside co_await on GCC 12 (docs/index.md#compiler-notes). The pointers must
/// live until the detector is called (string literals do); it copies them.
class json_pointer_list {
public:
    static constexpr std::size_t capacity = 16;
    constexpr json_pointer_list() noexcept = default;
    constexpr json_pointer_list(std::initializer_list<const char*> pointers) {
        if (pointers.size() > capacity)
            throw std::length_error("mcp_loadtest::json_pointer_list holds at most 16 JSON pointers");
        for (const char* p : pointers) items_[size_++] = p;
    }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr const char* const* begin() const noexcept { return items_.data(); }
    [[nodiscard]] constexpr const char* const* end() const noexcept { return items_.data() + size_; }

private:
    std::array<const char*, capacity> items_{};
    std::size_t size_ = 0;
};

struct race_options {
    std::size_t concurrent = 20;
    std::size_t sessions = 1;  ///< spread the identical calls over this many server processes
    call_options call{.timeout = std::chrono::seconds(30)};
    /// JSON pointers into the result removed before comparing (timestamps, request ids...).
    json_pointer_list ignore_paths{};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<race_options>);

/// Identical responses, grouped.
struct response_group {
    std::string canonical;  ///< key-sorted JSON of the result (or "error <outcome> <code>")
    std::size_t count = 0;
    std::vector<std::uint64_t> request_ids;  ///< the first 20
    std::string sample;                     ///< the first 500 characters of one raw result
};

struct race_report {
    std::string tool;
    std::size_t calls = 0;
    std::vector<response_group> groups;  ///< largest first

    /// More than one distinct response to identical concurrent calls.
    [[nodiscard]] bool divergent() const noexcept { return groups.size() > 1; }
    /// The report forms' shape (docs/reports.md): divergent responses are the finding.
    [[nodiscard]] bool passed() const noexcept { return !divergent(); }
    [[nodiscard]] std::string verdict_sentence() const { return explanation(); }
    [[nodiscard]] MCP_LOADTEST_DECL std::string explanation() const;
};

// ---- JSON (both ways) ------------------------------------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const response_group& g);
MCP_LOADTEST_DECL void from_json(const json& j, response_group& g);
MCP_LOADTEST_DECL void to_json(json& j, const race_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, race_report& r);

namespace detail {
/// The result as key-sorted JSON without the ignored members; failures by outcome and code.
MCP_LOADTEST_DECL std::string canonical_response(const call_result& c, const std::vector<std::string>& ignore);
}  // namespace detail

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// `concurrent` identical calls at once; responses compared after key-sorted
/// canonicalisation; divergent groups reported with counts and a sample each.
MCP_LOADTEST_DECL asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options = {});

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/race_check.ipp>
#endif
