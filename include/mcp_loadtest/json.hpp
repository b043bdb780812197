// JSON values in the public API are nlohmann::json.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace mcp_loadtest {

using json = nlohmann::json;

/// Arguments already serialized to JSON text. Pass one to call_tool() to skip
/// re-serializing the same arguments on every call of a load test.
class raw_json {
public:
    /// Serializes `value` now.
    static raw_json from(const json& value) { return raw_json(value.dump()); }
    /// Wraps text that is already valid JSON (not checked).
    static raw_json serialized(std::string text) { return raw_json(std::move(text)); }
    std::string text;

private:
    explicit raw_json(std::string t) : text(std::move(t)) {}
};

namespace detail {
inline void add_args(json&) {}
template <class Key, class Value, class... Rest>
void add_args(json& j, Key&& key, Value&& value, Rest&&... rest) {
    j[std::string(std::forward<Key>(key))] = std::forward<Value>(value);
    add_args(j, std::forward<Rest>(rest)...);
}
}  // namespace detail

/// Builds a JSON object from key/value pairs: args("ticker", "AAPL", "days", 5).
///
/// Prefer it to a braced `{{"ticker", "AAPL"}}` inside a co_await expression:
/// GCC 12 rejects initializer lists there ("array used as initializer", a
/// compiler bug); a braced list in its own statement is fine everywhere.
template <class... KeyValues>
json args(KeyValues&&... kv) {
    static_assert(sizeof...(KeyValues) % 2 == 0, "args() takes key, value pairs");
    json j = json::object();
    detail::add_args(j, std::forward<KeyValues>(kv)...);
    return j;
}

/// A tools/call argument object: a json object, a braced initializer
/// (`{{"ticker", "AAPL"}}`), or a raw_json serialized ahead of time. A named
/// raw_json is referenced, not copied: keep it alive while the call is made.
class arguments {
public:
    arguments() : owned_("{}"), text_(&owned_) {}
    arguments(const json& value) : owned_(value.is_null() ? "{}" : value.dump()), text_(&owned_) {}  // NOLINT: implicit
    arguments(json::initializer_list_t init) : owned_(json(init).dump()), text_(&owned_) {}        // NOLINT
    arguments(const raw_json& raw) : text_(&raw.text) {}                                           // NOLINT
    arguments(raw_json&& raw) : owned_(std::move(raw.text)), text_(&owned_) {}                     // NOLINT
    arguments(const arguments& o) : owned_(o.owned_), text_(o.owns() ? &owned_ : o.text_) {}
    MCP_LOADTEST_DECL arguments& operator=(const arguments& o);
    [[nodiscard]] const std::string& text() const noexcept { return *text_; }

private:
    [[nodiscard]] bool owns() const noexcept { return text_ == &owned_; }
    std::string owned_;
    const std::string* text_;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/json.ipp>
#endif
