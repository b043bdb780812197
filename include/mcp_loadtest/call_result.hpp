// The result of one request: its outcome, duration and (lazily parsed) payload.
#pragma once

#include <mcp_loadtest/detail/format.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/outcome.hpp>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// Thrown when a caller asks a call_result for a payload it does not have, or
/// one that cannot be read (not valid JSON, or not the shape asked for). The
/// accessors never let a JSON parser's own exception escape.
class result_unavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What one request ended with. A plain value: copy it, store it, compare it.
///
/// The raw reply line is kept and only parsed when `result()`, `error()` or
/// `text()` is called, so recording millions of results stays cheap.
struct call_result {
    mcp_loadtest::outcome outcome = outcome::cancelled;
    std::chrono::nanoseconds duration{0};  ///< from the request's send to its outcome
    std::uint64_t request_id = 0;
    std::string method;          ///< e.g. "tools/call"
    std::string tool;            ///< tool, resource or prompt name, when there is one
    std::int64_t error_code = 0; ///< JSON-RPC error code for server_error/protocol_error
    std::string message;         ///< what happened and what to do next; empty for `ok`
    std::uint32_t progress_notifications = 0;  ///< notifications/progress seen for this call
    std::uint32_t input_rounds = 0;
    std::uint16_t http_status = 0;   ///< HTTP transports: the status of a failed exchange (else 0)  ///< modern era: InputRequiredResult rounds answered before the outcome
    std::string raw;             ///< the reply line as received (empty if none arrived)
    std::uint32_t payload_begin = 0;  ///< offset of the "result"/"error" value in raw
    std::uint32_t payload_size = 0;

    [[nodiscard]] bool ok() const noexcept { return outcome == outcome::ok; }
    /// A reply arrived (success, tool error or JSON-RPC error).
    [[nodiscard]] bool answered() const noexcept { return !raw.empty(); }
    explicit operator bool() const noexcept { return ok(); }

    /// The raw text of the "result" (or "error") member.
    [[nodiscard]] std::string_view payload_text() const noexcept {
        return std::string_view(raw).substr(payload_begin, payload_size);
    }

    /// The parsed "result" member. Throws result_unavailable when the reply
    /// was an error or never arrived, or its result cannot be parsed.
    [[nodiscard]] json result() const {
        if (outcome != outcome::ok && outcome != outcome::tool_error &&
            !(outcome == outcome::hang && answered() && error_code == 0))
            throw result_unavailable("no result for " + describe_call() + ": " + describe());
        return parse_payload("result");
    }

    /// The parsed JSON-RPC "error" member, or null when there is none.
    /// Throws result_unavailable when it cannot be parsed.
    [[nodiscard]] json error() const {
        if (error_code == 0 || payload_size == 0) return nullptr;
        return parse_payload("error");
    }

    /// The result's `structuredContent` (tools/call), or null when it has none.
    /// Throws as result() does.
    [[nodiscard]] json structured() const {
        const json r = result();
        const auto it = r.find("structuredContent");
        return it == r.end() ? json(nullptr) : *it;
    }

    /// Concatenated `text` items of a tools/call or prompts/get result's content.
    /// Throws as result() does, and when a text item's "text" is not a string.
    [[nodiscard]] std::string text() const {
        const json r = result();
        std::string out;
        const auto content = r.find("content");
        if (content == r.end() || !content->is_array()) return out;
        for (std::size_t i = 0; i < content->size(); ++i) {
            const json& item = (*content)[i];
            if (!item.is_object()) continue;
            const auto type = item.find("type");
            if (type == item.end() || *type != "text") continue;
            const auto text = item.find("text");
            if (!out.empty()) out += '\n';
            if (text == item.end()) continue;
            if (!text->is_string())
                throw result_unavailable("the result of " + describe_call() + " has content[" + std::to_string(i) +
                                         "].text of type " + text->type_name() +
                                         ", not a string; read result() for the content as sent.");
            out += text->get_ref<const std::string&>();
        }
        return out;
    }

    /// "tools/call echo (id 7)" and the like, for messages.
    [[nodiscard]] std::string describe_call() const {
        std::string s = method;
        if (!tool.empty()) s += " " + tool;
        s += " (id " + std::to_string(request_id) + ")";
        return s;
    }

    /// One line: outcome, duration, and the detail message.
    [[nodiscard]] std::string describe() const {
        std::string s(to_string(outcome));
        s += " after ";
        s += detail::format_duration(std::chrono::duration_cast<std::chrono::microseconds>(duration));
        if (!message.empty()) s += ": " + message;
        return s;
    }

private:
    /// The payload parsed; a parser's exception becomes result_unavailable.
    [[nodiscard]] json parse_payload(const char* member) const {
        try {
            return json::parse(payload_text());
        } catch (const json::exception& e) {
            throw result_unavailable("the " + std::string(member) + " of " + describe_call() + " (" +
                                     std::string(to_string(outcome)) + ") cannot be parsed: " + e.what() +
                                     ". Its text is in payload_text(), the whole reply in raw.");
        }
    }
};

}  // namespace mcp_loadtest
