// Definitions of call_mix.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/call_mix.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::int64_t uniform(load_rng& rng, std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(rng() % span);
}

MCP_LOADTEST_DECL weighted_call resource_read(std::string uri, double weight) {
    weighted_call c;
    c.method = "resources/read";
    c.arguments = json{{"uri", uri}};
    c.tool = std::move(uri);
    c.weight = weight;
    return c;
}

MCP_LOADTEST_DECL weighted_call prompt_get(std::string name, json prompt_arguments, double weight) {
    weighted_call c;
    c.method = "prompts/get";
    c.arguments = json{{"name", name}, {"arguments", std::move(prompt_arguments)}};
    c.tool = std::move(name);
    c.weight = weight;
    return c;
}

MCP_LOADTEST_DECL weighted_call completion_complete(json ref, std::string argument, std::string value, double weight) {
    weighted_call c;
    c.method = "completion/complete";
    if (ref.is_object()) c.tool = ref.value("name", ref.value("uri", std::string()));
    c.arguments = json{{"ref", std::move(ref)}, {"argument", {{"name", std::move(argument)}, {"value", std::move(value)}}}};
    c.weight = weight;
    return c;
}

MCP_LOADTEST_DECL weighted_call method_call(std::string method, json params, double weight, std::string name) {
    weighted_call c;
    c.method = std::move(method);
    c.arguments = std::move(params);
    c.tool = std::move(name);
    c.weight = weight;
    return c;
}

namespace detail {

MCP_LOADTEST_DECL std::string request_name(std::string_view method, const std::string& tool, const json& params) {
    if (!tool.empty() || !params.is_object()) return tool;
    const char* member = method == "resources/read" ? "uri" : method == "prompts/get" ? "name" : nullptr;
    if (!member) return {};
    const auto it = params.find(member);
    return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace detail

MCP_LOADTEST_DECL mix::mix(std::vector<weighted_call> calls, std::vector<pattern> patterns)
    : calls_(std::move(calls)), patterns_(std::move(patterns)) {
    validate();
}

MCP_LOADTEST_DECL mix::mix(const mix&) = default;
MCP_LOADTEST_DECL mix::mix(mix&&) noexcept = default;
MCP_LOADTEST_DECL mix& mix::operator=(const mix&) = default;
MCP_LOADTEST_DECL mix& mix::operator=(mix&&) noexcept = default;
MCP_LOADTEST_DECL mix::~mix() = default;

MCP_LOADTEST_DECL mix mix::single(std::string tool, json arguments) {
    return mix(std::vector<weighted_call>{{std::move(tool), std::move(arguments), 1.0, {}}});
}

MCP_LOADTEST_DECL mix& mix::add(weighted_call c) {
    calls_.push_back(std::move(c));
    validate();
    return *this;
}

MCP_LOADTEST_DECL mix& mix::add(pattern p) {
    patterns_.push_back(std::move(p));
    validate();
    return *this;
}

MCP_LOADTEST_DECL std::size_t mix::pick(load_rng& rng) const {
    if (total_weight_ <= 0) throw std::logic_error("mcp_loadtest::mix is empty: add at least one call or pattern");
    // 53 random bits → [0, 1): portable, unlike std::uniform_real_distribution.
    const double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0) * total_weight_;
    double acc = 0;
    for (std::size_t i = 0; i < calls_.size(); ++i)
        if (u < (acc += calls_[i].weight)) return i;
    for (std::size_t i = 0; i < patterns_.size(); ++i)
        if (u < (acc += patterns_[i].weight)) return calls_.size() + i;
    return calls_.size() + patterns_.size() - 1;
}

MCP_LOADTEST_DECL void mix::validate() {
    total_weight_ = 0;
    for (const auto& c : calls_) {
        if (c.is_tool_call()) {
            if (c.tool.empty())
                throw std::invalid_argument("mcp_loadtest::mix: a call has an empty tool name; name the tool, or set "
                                            "`method` for another request (e.g. mlt::resource_read(uri))");
        } else {
            check_method(c.method);
        }
        const std::string what = c.is_tool_call() ? "tool '" + c.tool + "'"
                                                  : "request '" + c.method + (c.tool.empty() ? "" : " " + c.tool) + "'";
        if (!(c.weight >= 0)) throw std::invalid_argument("mcp_loadtest::mix: " + what + " has a negative weight");
        if (!c.generate && !c.arguments.is_object())
            throw std::invalid_argument("mcp_loadtest::mix: the " + std::string(c.is_tool_call() ? "arguments" : "params") +
                                        " of " + what + " must be a JSON object, got " + c.arguments.dump());
        total_weight_ += c.weight;
    }
    for (const auto& p : patterns_) {
        if (p.steps.empty())
            throw std::invalid_argument("mcp_loadtest::mix: pattern '" + p.name + "' has no steps");
        for (const auto& st : p.steps)
            if (!st.method.empty() && st.method != "tools/call") check_method(st.method);
        if (!(p.weight >= 0))
            throw std::invalid_argument("mcp_loadtest::mix: pattern '" + p.name + "' has a negative weight");
        total_weight_ += p.weight;
    }
}

MCP_LOADTEST_DECL void mix::check_method(const std::string& method) {
    // Requests the session makes itself, or that expect no reply: a mix of them would measure
    // nothing, or wait for replies that never come.
    if (method == "initialize" || method == "server/discover" || method.starts_with("notifications/"))
        throw std::invalid_argument("mcp_loadtest::mix: '" + method +
                                    "' cannot be a request of the mix: " +
                                    (method.starts_with("notifications/")
                                         ? "a notification gets no reply; send it with session::notify() in a scenario body"
                                         : "the session sends it itself when it opens; measure the opening with "
                                           "mlt::cold_start() or a scenario body"));
}

}  // namespace mcp_loadtest
