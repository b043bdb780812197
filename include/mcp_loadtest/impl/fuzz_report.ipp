// Definitions of fuzz_report.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/fuzz_report.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string fuzz_finding::reproduction() const {
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

MCP_LOADTEST_DECL std::string fuzz_finding::describe() const {
    std::string s = std::string(to_string(severity())) + " " + std::string(to_string(verdict)) + " [" + category +
                    "] " + name + ": expected " + expected;
    if (!detail.empty()) s += "; " + detail;
    else if (!reply.empty()) s += "; got " + reply.substr(0, 200);
    return s + "\n    " + reproduction().substr(0, 400);
}

MCP_LOADTEST_DECL std::size_t fuzz_category_summary::count(fuzz_verdict v) const {
    auto it = verdicts.find(std::string(to_string(v)));
    return it == verdicts.end() ? 0 : it->second;
}

MCP_LOADTEST_DECL std::size_t fuzz_report::count(fuzz_severity s) const noexcept {
    std::size_t n = 0;
    for (const auto& f : findings) n += f.severity() == s;
    return n;
}

MCP_LOADTEST_DECL bool fuzz_report::clean() const noexcept {
    return count(fuzz_severity::error) == 0 && count(fuzz_severity::critical) == 0;
}

MCP_LOADTEST_DECL std::string fuzz_report::summary() const {
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

MCP_LOADTEST_DECL std::string fuzz_report::explanation() const {
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

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string printable_json_text(std::string_view s) {
    return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

MCP_LOADTEST_DECL std::string base64_of(std::string_view s) {
    return base64_encode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL void to_json(json& j, const fuzz_finding& f) {
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

MCP_LOADTEST_DECL void from_json(const json& j, fuzz_finding& f) {
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

MCP_LOADTEST_DECL void to_json(json& j, const fuzz_report& r) {
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

MCP_LOADTEST_DECL void from_json(const json& j, fuzz_report& r) {
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

}  // namespace mcp_loadtest
