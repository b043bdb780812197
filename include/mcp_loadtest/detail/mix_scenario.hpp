// A mix as a scenario body: each iteration draws one weighted call or pattern
// from the run's generator and measures its calls like any body would.
#pragma once

#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/iteration.hpp>
#include <mcp_loadtest/session.hpp>

#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace mcp_loadtest::detail {

struct mix_state {
    mix calls;
    std::vector<raw_json> fixed_args;  // serialized once, not per call
};

struct mix_iteration_job {
    std::shared_ptr<const mix_state> state;
    session* s;
    iteration* it;

    asio::awaitable<void> run() {
        const mix& m = state->calls;
        const std::size_t choice = m.pick(it->rng());
        if (choice < m.calls().size()) {
            const weighted_call& c = m.calls()[choice];
            if (c.generate) {
                const arguments generated = raw_json::from(c.generate(it->index(), it->rng()));
                co_await it->measure(s->call_tool(c.tool, generated, options));
            } else {
                co_await it->measure(s->call_tool(c.tool, state->fixed_args[choice], options));
            }
            co_return;
        }
        const pattern& p = m.patterns()[choice - m.calls().size()];
        std::optional<call_result> previous;
        for (const step& st : p.steps) {
            const arguments args = raw_json::from(st.from_previous && previous
                                                      ? st.from_previous(*previous, it->index(), it->rng())
                                                      : st.arguments);
            call_result r = co_await it->measure(s->call_tool(st.tool, args, options));
            const bool failed = !r.ok();
            previous = std::move(r);
            if (failed && st.on_error == on_step_error::abort_pattern) break;
            if (st.think_time.count() > 0) co_await it->think(st.think_time);
        }
    }
    call_options options;
};

/// The body run() uses for a mix; `options` bound every call.
struct mix_body {
    std::shared_ptr<const mix_state> state;
    call_options options;
    asio::awaitable<void> operator()(session& s, iteration& it) const {
        return start_owned(mix_iteration_job{state, &s, &it, options});
    }
};

inline scenario make_mix_scenario(mix calls, call_options options) {
    if (calls.empty())
        throw std::invalid_argument("mcp_loadtest::run: the mix is empty; give at least one tool call, e.g. "
                                    "mlt::mix::single(\"echo\", mlt::args(\"message\", \"hi\"))");
    auto state = std::make_shared<mix_state>();
    for (const auto& c : calls.calls()) state->fixed_args.push_back(raw_json::from(c.arguments));
    state->calls = std::move(calls);
    return mix_body{std::move(state), options};
}

}  // namespace mcp_loadtest::detail
