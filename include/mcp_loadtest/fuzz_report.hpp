// What a protocol fuzzing campaign found (fuzz.hpp): a plain struct, JSON
// both ways. Every finding keeps the exact bytes that caused it and a
// one-line reproduction.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>
#include <mcp_loadtest/fuzz_input.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// How the server handled one input.
enum class fuzz_verdict : std::uint8_t {
    correct_error,    ///< the JSON-RPC error the spec asks for (-32700, -32600, -32601, -32602)
    tool_error,       ///< an isError result: a fine answer to bad tool arguments
    accepted,         ///< a success result (fine unless the input had to be rejected)
    ignored,          ///< nothing came back, as none was due (a notification, a response)
    wrong_code,       ///< a JSON-RPC error with another code than the one expected
    accepted_invalid, ///< a success result to an input the tool's schema forbids
    replied_to_notification,  ///< an answer to a message that must not get one
    echoed_input,     ///< malformed only because it repeated the input's own invalid text (a lone surrogate)
    no_reply,         ///< a reply was due and none came within reply_timeout
    wrong_id,         ///< a reply came, carrying an id the input did not have
    malformed,        ///< the answer was not JSON-RPC (not JSON, wrong shape)
    crash,            ///< the server died of the input
    unusable,         ///< it survived, but no longer answered a ping
};

[[nodiscard]] constexpr std::string_view to_string(fuzz_verdict v) noexcept {
    switch (v) {
        case fuzz_verdict::correct_error: return "correct_error";
        case fuzz_verdict::tool_error: return "tool_error";
        case fuzz_verdict::accepted: return "accepted";
        case fuzz_verdict::ignored: return "ignored";
        case fuzz_verdict::wrong_code: return "wrong_code";
        case fuzz_verdict::accepted_invalid: return "accepted_invalid";
        case fuzz_verdict::replied_to_notification: return "replied_to_notification";
        case fuzz_verdict::echoed_input: return "echoed_input";
        case fuzz_verdict::no_reply: return "no_reply";
        case fuzz_verdict::wrong_id: return "wrong_id";
        case fuzz_verdict::malformed: return "malformed";
        case fuzz_verdict::crash: return "crash";
        case fuzz_verdict::unusable: return "unusable";
    }
    return "unknown";
}

inline constexpr fuzz_verdict all_fuzz_verdicts[] = {
    fuzz_verdict::correct_error, fuzz_verdict::tool_error,       fuzz_verdict::accepted,
    fuzz_verdict::ignored,       fuzz_verdict::wrong_code,       fuzz_verdict::accepted_invalid,
    fuzz_verdict::replied_to_notification, fuzz_verdict::echoed_input, fuzz_verdict::no_reply, fuzz_verdict::wrong_id,
    fuzz_verdict::malformed,     fuzz_verdict::crash,            fuzz_verdict::unusable};

/// How much a verdict matters: fine, a deviation from the spec a client
/// survives (warning), or a bug (error: the server misbehaved; critical: it died or wedged).
enum class fuzz_severity : std::uint8_t { fine, warning, error, critical };

[[nodiscard]] constexpr fuzz_severity severity_of(fuzz_verdict v) noexcept {
    switch (v) {
        case fuzz_verdict::correct_error:
        case fuzz_verdict::tool_error:
        case fuzz_verdict::accepted:
        case fuzz_verdict::ignored: return fuzz_severity::fine;
        case fuzz_verdict::wrong_code:
        case fuzz_verdict::replied_to_notification:
        case fuzz_verdict::echoed_input: return fuzz_severity::warning;
        case fuzz_verdict::accepted_invalid:
        case fuzz_verdict::no_reply:
        case fuzz_verdict::wrong_id:
        case fuzz_verdict::malformed: return fuzz_severity::error;
        case fuzz_verdict::crash:
        case fuzz_verdict::unusable: return fuzz_severity::critical;
    }
    return fuzz_severity::critical;
}

[[nodiscard]] constexpr std::string_view to_string(fuzz_severity s) noexcept {
    switch (s) {
        case fuzz_severity::fine: return "fine";
        case fuzz_severity::warning: return "warning";
        case fuzz_severity::error: return "error";
        case fuzz_severity::critical: return "critical";
    }
    return "unknown";
}

/// One input that did not get a fine answer.
struct fuzz_finding {
    std::string category;
    std::string name;
    std::string bytes;  ///< exactly what was written (the transport added only its framing)
    fuzz_verdict verdict = fuzz_verdict::no_reply;
    std::string expected;  ///< what a correct server does, e.g. "error -32602"
    std::string reply;     ///< the answer, first 500 bytes (empty: none)
    std::int64_t error_code = 0;
    std::string detail;    ///< what happened: exit status and stderr tail for a crash
    std::chrono::nanoseconds duration{0};

    [[nodiscard]] fuzz_severity severity() const noexcept { return severity_of(verdict); }

    /// One line that sends the same bytes again, e.g. co_await s.send_raw(R"mcp({...})mcp");
    [[nodiscard]] MCP_LOADTEST_DECL std::string reproduction() const;

    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// Counts of each verdict in one category of inputs.
struct fuzz_category_summary {
    std::size_t inputs = 0;
    std::map<std::string, std::size_t> verdicts;  ///< verdict name -> count
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t count(fuzz_verdict v) const;
};

struct fuzz_report {
    std::string server;      ///< the server description, for messages
    std::uint64_t seed = 0;
    std::size_t planned = 0;  ///< inputs in the campaign
    std::size_t sent = 0;     ///< inputs sent before the count or time budget ran out
    bool budget_exhausted = false;
    std::size_t restarts = 0;  ///< the server was restarted after this many crashes or wedges
    std::chrono::nanoseconds elapsed{0};
    std::map<std::string, fuzz_category_summary> categories;
    std::vector<fuzz_finding> findings;  ///< every input with a warning, error or critical verdict

    [[nodiscard]] MCP_LOADTEST_DECL std::size_t count(fuzz_severity s) const noexcept;
    /// No error and no critical finding (warnings allowed).
    [[nodiscard]] MCP_LOADTEST_DECL bool clean() const noexcept;

    /// One line per category, then the verdict.
    [[nodiscard]] MCP_LOADTEST_DECL std::string summary() const;

    /// What it means and what to do.
    [[nodiscard]] MCP_LOADTEST_DECL std::string explanation() const;
};

// ---- JSON ------------------------------------------------------------------
// Bytes travel base64-encoded (they may be invalid UTF-8, which JSON cannot hold).

namespace detail {
MCP_LOADTEST_DECL std::string printable_json_text(std::string_view s);
MCP_LOADTEST_DECL std::string base64_of(std::string_view s);
template <class T>
T fuzz_field(const json& j, const char* key, const char* where) {
    auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(std::string(where) + "." + key + " is missing");
    try {
        return it->get<T>();
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string(where) + "." + key + " has the wrong type: " + e.what());
    }
}
}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const fuzz_finding& f);

MCP_LOADTEST_DECL void from_json(const json& j, fuzz_finding& f);

MCP_LOADTEST_DECL void to_json(json& j, const fuzz_report& r);

MCP_LOADTEST_DECL void from_json(const json& j, fuzz_report& r);

namespace detail {
/// Failure text for MCP_CHECK_FUZZ_CLEAN: empty when clean.
template <class Report>
std::string fuzz_clean_failure(const Report& r) {
    if (r.clean()) return {};
    std::string s = r.summary() + "\n" + r.explanation() + "\n";
    std::size_t shown = 0;
    for (const auto& f : r.findings) {
        if (f.severity() < fuzz_severity::error) continue;
        if (++shown > 20) {
            s += "  ... and more in the report\n";
            break;
        }
        s += "  - " + f.describe() + "\n";
    }
    return s;
}
}  // namespace detail

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/fuzz_report.ipp>
#endif
