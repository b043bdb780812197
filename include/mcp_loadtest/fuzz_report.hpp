// What a protocol fuzzing campaign found (fuzz.hpp): a plain struct, JSON
// both ways. Every finding keeps the exact bytes that caused it and a
// one-line reproduction.
#pragma once

#include <mcp_loadtest/detail/base64.hpp>
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
    fuzz_verdict::replied_to_notification, fuzz_verdict::no_reply, fuzz_verdict::wrong_id,
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
        case fuzz_verdict::replied_to_notification: return fuzz_severity::warning;
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
    [[nodiscard]] std::string reproduction() const {
        constexpr std::size_t printable_limit = 2000;
        if (bytes.size() > printable_limit)
            return "co_await s.send_raw(finding.bytes);  // " + std::to_string(bytes.size()) +
                   " bytes: too long to print; the report's JSON holds them exactly (bytes_base64)";
        bool plain = bytes.find(")mcp\"") == std::string::npos;
        for (unsigned char c : bytes)
            if (c < 0x20 || c >= 0x7f) plain = false;
        if (plain) return "co_await s.send_raw(R\"mcp(" + bytes + ")mcp\");";
        // Octal escapes: a hex escape would swallow the hex digits after it.
        std::string lit;
        for (unsigned char c : bytes) {
            if (c == '"' || c == '\\') {
                lit += '\\';
                lit += static_cast<char>(c);
            } else if (c < 0x20 || c >= 0x7f) {
                const char digits[] = {'\\', static_cast<char>('0' + (c >> 6)), static_cast<char>('0' + ((c >> 3) & 7)),
                                       static_cast<char>('0' + (c & 7))};
                lit.append(digits, 4);
            } else {
                lit += static_cast<char>(c);
            }
        }
        return "co_await s.send_raw(std::string_view(\"" + lit + "\", " + std::to_string(bytes.size()) + "));";
    }

    [[nodiscard]] std::string describe() const {
        std::string s = std::string(to_string(severity())) + " " + std::string(to_string(verdict)) + " [" + category +
                        "] " + name + ": expected " + expected;
        if (!detail.empty()) s += "; " + detail;
        else if (!reply.empty()) s += "; got " + reply.substr(0, 200);
        return s + "\n    " + reproduction().substr(0, 400);
    }
};

/// Counts of each verdict in one category of inputs.
struct fuzz_category_summary {
    std::size_t inputs = 0;
    std::map<std::string, std::size_t> verdicts;  ///< verdict name -> count
    [[nodiscard]] std::size_t count(fuzz_verdict v) const {
        auto it = verdicts.find(std::string(to_string(v)));
        return it == verdicts.end() ? 0 : it->second;
    }
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

    [[nodiscard]] std::size_t count(fuzz_severity s) const noexcept {
        std::size_t n = 0;
        for (const auto& f : findings) n += f.severity() == s;
        return n;
    }
    /// No error and no critical finding (warnings allowed).
    [[nodiscard]] bool clean() const noexcept {
        return count(fuzz_severity::error) == 0 && count(fuzz_severity::critical) == 0;
    }

    /// One line per category, then the verdict.
    [[nodiscard]] std::string summary() const {
        std::string s = "fuzzed " + server + ": " + std::to_string(sent) + " of " + std::to_string(planned) +
                        " inputs (seed " + std::to_string(seed) + ", " +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) +
                        " ms, " + std::to_string(restarts) + " restart(s))" +
                        (budget_exhausted ? ", stopped by its budget" : "") + "\n";
        for (const auto& [name, c] : categories) {
            s += "  " + name + ": " + std::to_string(c.inputs) + " inputs;";
            for (fuzz_verdict v : all_fuzz_verdicts)
                if (c.count(v)) s += " " + std::string(to_string(v)) + " " + std::to_string(c.count(v));
            s += "\n";
        }
        s += "  " + std::to_string(count(fuzz_severity::critical)) + " critical, " +
             std::to_string(count(fuzz_severity::error)) + " error, " + std::to_string(count(fuzz_severity::warning)) +
             " warning finding(s)";
        return s;
    }

    /// What it means and what to do.
    [[nodiscard]] std::string explanation() const {
        if (findings.empty())
            return "every input got the answer JSON-RPC 2.0 and MCP ask for, and the server stayed usable.";
        std::string s;
        if (count(fuzz_severity::critical))
            s += "The server crashed or wedged on malformed input: any client (or attacker) sending such bytes takes "
                 "it down for every user. ";
        if (count(fuzz_severity::error))
            s += "It left inputs unanswered, answered them with malformed output or under another id, or accepted "
                 "arguments its own schema forbids: a client waits forever or mis-correlates replies. ";
        if (count(fuzz_severity::warning))
            s += "It answered with other error codes than the spec's, or replied to notifications: clients that "
                 "branch on the code misread it. ";
        s += "Each finding below has the exact bytes and a line that sends them again.";
        return s;
    }
};

// ---- JSON ------------------------------------------------------------------
// Bytes travel base64-encoded (they may be invalid UTF-8, which JSON cannot hold).

namespace detail {
inline std::string printable_json_text(std::string_view s) {
    return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}
inline std::string base64_of(std::string_view s) {
    return base64_encode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}
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

inline void to_json(json& j, const fuzz_finding& f) {
    j = json{{"category", f.category},
             {"name", f.name},
             {"bytes_base64", detail::base64_of(f.bytes)},
             {"verdict", std::string(to_string(f.verdict))},
             {"severity", std::string(to_string(f.severity()))},
             {"expected", f.expected},
             {"reply", json::parse(detail::printable_json_text(f.reply))},
             {"error_code", f.error_code},
             {"detail", json::parse(detail::printable_json_text(f.detail))},
             {"duration_ms", std::chrono::duration<double, std::milli>(f.duration).count()},
             {"reproduction", json::parse(detail::printable_json_text(f.reproduction()))}};
}

inline void from_json(const json& j, fuzz_finding& f) {
    const char* where = "fuzz_finding";
    f.category = detail::fuzz_field<std::string>(j, "category", where);
    f.name = detail::fuzz_field<std::string>(j, "name", where);
    const auto raw = detail::base64_decode(detail::fuzz_field<std::string>(j, "bytes_base64", where));
    if (!raw) throw std::invalid_argument("fuzz_finding.bytes_base64 is not valid base64");
    f.bytes.assign(raw->begin(), raw->end());
    const auto verdict = detail::fuzz_field<std::string>(j, "verdict", where);
    bool known = false;
    for (fuzz_verdict v : all_fuzz_verdicts)
        if (to_string(v) == verdict) {
            f.verdict = v;
            known = true;
        }
    if (!known) throw std::invalid_argument("fuzz_finding.verdict \"" + verdict + "\" is not a fuzz_verdict");
    f.expected = detail::fuzz_field<std::string>(j, "expected", where);
    f.reply = detail::fuzz_field<std::string>(j, "reply", where);
    f.error_code = detail::fuzz_field<std::int64_t>(j, "error_code", where);
    f.detail = detail::fuzz_field<std::string>(j, "detail", where);
    f.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(detail::fuzz_field<double>(j, "duration_ms", where)));
}

inline void to_json(json& j, const fuzz_report& r) {
    json cats = json::object();
    for (const auto& [name, c] : r.categories) cats[name] = json{{"inputs", c.inputs}, {"verdicts", c.verdicts}};
    j = json{{"server", json::parse(detail::printable_json_text(r.server))},
             {"seed", r.seed},
             {"planned", r.planned},
             {"sent", r.sent},
             {"budget_exhausted", r.budget_exhausted},
             {"restarts", r.restarts},
             {"elapsed_ms", std::chrono::duration<double, std::milli>(r.elapsed).count()},
             {"clean", r.clean()},
             {"categories", cats},
             {"findings", r.findings}};
}

inline void from_json(const json& j, fuzz_report& r) {
    const char* where = "fuzz_report";
    r.server = detail::fuzz_field<std::string>(j, "server", where);
    r.seed = detail::fuzz_field<std::uint64_t>(j, "seed", where);
    r.planned = detail::fuzz_field<std::size_t>(j, "planned", where);
    r.sent = detail::fuzz_field<std::size_t>(j, "sent", where);
    r.budget_exhausted = detail::fuzz_field<bool>(j, "budget_exhausted", where);
    r.restarts = detail::fuzz_field<std::size_t>(j, "restarts", where);
    r.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(detail::fuzz_field<double>(j, "elapsed_ms", where)));
    r.categories.clear();
    const json categories = detail::fuzz_field<json>(j, "categories", where);
    if (!categories.is_object()) throw std::invalid_argument("fuzz_report.categories is not an object");
    for (const auto& [name, c] : categories.items()) {
        fuzz_category_summary s;
        s.inputs = detail::fuzz_field<std::size_t>(c, "inputs", "fuzz_report.categories");
        s.verdicts = detail::fuzz_field<std::map<std::string, std::size_t>>(c, "verdicts", "fuzz_report.categories");
        r.categories[name] = std::move(s);
    }
    r.findings.clear();
    const auto findings = detail::fuzz_field<json>(j, "findings", where);
    if (!findings.is_array()) throw std::invalid_argument("fuzz_report.findings is not an array");
    for (std::size_t i = 0; i < findings.size(); ++i) {
        try {
            r.findings.push_back(findings[i].get<fuzz_finding>());
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("fuzz_report.findings[" + std::to_string(i) + "]: " + e.what());
        }
    }
}

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
