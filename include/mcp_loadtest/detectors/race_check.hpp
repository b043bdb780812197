// The race check (docs/load-testing.md#the-race-check): `concurrent` identical
// calls at once across the sessions (concurrently()), the responses compared
// after key-sorted canonicalisation, divergent groups reported with counts.
#pragma once

#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/sessions.hpp>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
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
    [[nodiscard]] std::string explanation() const {
        if (!divergent()) return std::to_string(calls) + " identical calls to '" + tool + "' all returned the same response.";
        std::string s = std::to_string(calls) + " identical concurrent calls to '" + tool + "' returned " +
                        std::to_string(groups.size()) +
                        " different responses: shared state is probably not synchronised (a race), or the "
                        "response contains volatile fields (add them to race_options.ignore_paths).";
        for (std::size_t i = 0; i < groups.size() && i < 5; ++i)
            s += "\n  " + std::to_string(groups[i].count) + "x: " + groups[i].sample;
        return s;
    }
};

// ---- JSON (both ways) ------------------------------------------------------------

inline void to_json(json& j, const response_group& g) {
    j = json{{"canonical", g.canonical}, {"count", g.count}, {"request_ids", g.request_ids}, {"sample", g.sample}};
}
inline void from_json(const json& j, response_group& g) {
    g.canonical = j.at("canonical").get<std::string>();
    g.count = j.at("count").get<std::size_t>();
    g.request_ids = j.at("request_ids").get<std::vector<std::uint64_t>>();
    g.sample = j.at("sample").get<std::string>();
}
inline void to_json(json& j, const race_report& r) {
    j = json{{"tool", r.tool}, {"calls", r.calls}, {"divergent", r.divergent()}, {"groups", r.groups}};
}
inline void from_json(const json& j, race_report& r) {
    r.tool = j.at("tool").get<std::string>();
    r.calls = j.at("calls").get<std::size_t>();
    r.groups = j.at("groups").get<std::vector<response_group>>();
}

namespace detail {
/// The result as key-sorted JSON without the ignored members; failures by outcome and code.
inline std::string canonical_response(const call_result& c, const std::vector<std::string>& ignore) {
    if (c.outcome != outcome::ok && c.outcome != outcome::tool_error)
        return "error " + std::string(to_string(c.outcome)) + " " + std::to_string(c.error_code);
    json v;
    try {
        v = c.result();
    } catch (const std::exception&) {
        return "unparseable " + std::string(c.payload_text());
    }
    for (const auto& p : ignore) {
        try {
            const json::json_pointer ptr(p);
            if (v.contains(ptr)) v[ptr.parent_pointer()].erase(ptr.back());
        } catch (const std::exception&) {
        }
    }
    return (c.outcome == outcome::tool_error ? "tool_error " : "") + v.dump();  // objects dump key-sorted
}

/// Groups results by canonical response, largest group first.
inline std::vector<response_group> group_responses(const std::vector<call_result>& results,
                                                   const std::vector<std::string>& ignore) {
    std::map<std::string, response_group> groups;
    for (const auto& c : results) {
        const std::string key = canonical_response(c, ignore);
        auto& g = groups[key];
        if (g.count++ == 0) {
            g.canonical = key;
            g.sample = c.answered() ? std::string(c.payload_text().substr(0, 500)) : c.describe();
        }
        if (g.request_ids.size() < 20) g.request_ids.push_back(c.request_id);
    }
    std::vector<response_group> out;
    for (auto& [k, g] : groups) out.push_back(std::move(g));
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
    return out;
}

struct race_job {
    any_server server;
    client_options client;
    std::string tool;
    raw_json args;
    race_options o;
    std::vector<std::string> ignore;

    asio::awaitable<race_report> run() {
        auto sessions = co_await open_sessions(server, std::max<std::size_t>(1, o.sessions), client);
        const auto results = co_await concurrently(sessions, o.concurrent, [this](session& s, std::size_t) {
            return s.call_tool(tool, args, o.call);
        });
        co_await close_sessions(sessions);
        race_report r;
        r.tool = tool;
        r.calls = results.size();
        r.groups = group_responses(results, ignore);
        co_return r;
    }
};
}  // namespace detail

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// `concurrent` identical calls at once; responses compared after key-sorted
/// canonicalisation; divergent groups reported with counts and a sample each.
inline asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options, client_options client) {
    std::vector<std::string> ignore(options.ignore_paths.begin(), options.ignore_paths.end());
    return detail::start_owned(detail::race_job{std::move(server), std::move(client), std::move(tool),
                                                raw_json::from(arguments), options, std::move(ignore)});
}
inline asio::awaitable<race_report> race_check(any_server server, std::string tool, const json& arguments,
                                               race_options options = {}) {
    return race_check(std::move(server), std::move(tool), arguments, options, client_options{});
}

}  // namespace mcp_loadtest
