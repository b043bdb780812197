// Definitions of detail/engine/mix_scenario.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/mix_scenario.hpp>

#include <mcp_loadtest/detail/session/send_request.hpp>

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<call_result> send_mix_request(session& s, const std::string& method,
                                                                 const std::string& tool, const json& params,
                                                                 call_options options) {
    const std::string name = request_name(method, tool, params);
    return send_request(session_core_access::of(s), method, params, name, options);
}

MCP_LOADTEST_DECL asio::awaitable<void> mix_iteration_job::run() {
    const mix& m = state->calls;
    const std::size_t choice = this->choice != static_cast<std::size_t>(-1) ? this->choice : m.pick(it->rng());
    if (choice < m.calls().size()) {
        const weighted_call& c = m.calls()[choice];
        call_options o = options;
        o.progress = o.progress || c.progress;
        if (!c.is_tool_call()) {
            const json params = c.generate ? c.generate(it->index(), it->rng()) : c.arguments;
            auto call = send_mix_request(*s, c.method, c.tool, params, o);
            co_await it->measure(std::move(call));
        } else if (c.generate) {
            const arguments generated = raw_json::from(c.generate(it->index(), it->rng()));
            co_await it->measure(s->call_tool(c.tool, generated, o));
        } else {
            co_await it->measure(s->call_tool(c.tool, state->fixed_args[choice], o));
        }
        co_return;
    }
    const pattern& p = m.patterns()[choice - m.calls().size()];
    std::optional<call_result> previous;
    for (const step& st : p.steps) {
        const json input = st.from_previous && previous ? st.from_previous(*previous, it->index(), it->rng()) : st.arguments;
        call_options o = options;
        o.progress = o.progress || st.progress;
        auto call = st.method.empty() || st.method == "tools/call"
                        ? s->call_tool(st.tool, arguments(raw_json::from(input)), o)
                        : send_mix_request(*s, st.method, st.tool, input, o);
        call_result r = co_await it->measure(std::move(call));
        const bool failed = !r.ok();
        previous = std::move(r);
        if (failed && st.on_error == on_step_error::abort_pattern) break;
        if (st.think_time.count() > 0) co_await it->think(st.think_time);
    }
}

MCP_LOADTEST_DECL asio::awaitable<void> mix_body::operator()(session& s, iteration& it) const {
    return start_owned(mix_iteration_job{state, &s, &it, options});
}

MCP_LOADTEST_DECL scenario make_mix_scenario(mix calls, call_options options) {
    if (calls.empty())
        throw std::invalid_argument("mcp_loadtest::run: the mix is empty; give at least one tool call, e.g. "
                                    "mlt::mix::single(\"echo\", mlt::args(\"message\", \"hi\"))");
    auto state = std::make_shared<mix_state>();
    for (const auto& c : calls.calls()) {
        state->fixed_args.push_back(raw_json::from(c.arguments));
        state->names.push_back(c.is_tool_call() ? std::string() : request_name(c.method, c.tool, c.arguments));
    }
    state->calls = std::move(calls);
    return mix_body{std::move(state), options};
}

}  // namespace mcp_loadtest::detail
