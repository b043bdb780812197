// Definitions of detectors/session_churn.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detectors/session_churn.hpp>

#include <mcp_loadtest/detail/os/child_process.hpp>
#include <mcp_loadtest/detail/text/command_text.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/os/process_groups.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string churn_report::verdict_sentence() const {
    using detail::format_duration;
    const std::string n = std::to_string(cycles.size());
    const bool interrupted = interruption != churn_interruption::none;
    // With interruptions, the last cycle is the session after the last one.
    const std::string what = std::to_string(interrupted && !cycles.empty() ? cycles.size() - 1 : cycles.size()) +
                             " " + transport + " start/handshake/" + call + "/close cycles";
    const std::string timing = "median " + format_duration(cycle_median) + ", p90 " + format_duration(cycle_p90) +
                               ", max " + format_duration(cycle_max);
    const churn_cycle* failed = nullptr;
    for (const auto& c : cycles)
        if (!c.ok) {
            failed = &c;
            break;
        }
    switch (verdict) {
        case churn_verdict::could_not_start:
            return "COULD NOT START: the first session failed at " +
                   (failed ? failed->failed_stage + ": " + failed->failure : std::string("connect")) +
                   ". Nothing could be measured: check the server's command or URL with a plain connect().";
        case churn_verdict::reconnect_failed: {
            std::string after = failed && failed->index > 0 && cycles.front().interrupted
                                    ? " after the previous session was " +
                                          std::string(interruption == churn_interruption::kill_mid_call
                                                          ? "killed (SIGKILL)"
                                                          : "closed") +
                                          " mid-call"
                                    : std::string();
            return "RECONNECT FAILED: " + std::to_string(failed_cycles) + " of " + n + " sessions failed; cycle " +
                   std::to_string(failed ? failed->index : 0) + " failed at " +
                   (failed ? failed->failed_stage : std::string("?")) + after + " (" +
                   (failed ? failed->failure.substr(0, 600) : std::string()) +
                   "). State the previous instance left (a lock or pid file, a port, a socket path, a "
                   "half-written cache) blocks the next one: tie it to the process (flock(), SO_REUSEADDR, "
                   "replace a stale socket at start) so a crash releases it.";
        }
        case churn_verdict::leaves_processes: {
            std::string s = "LEAVES PROCESSES: ";
            const churn_process* example = nullptr;
            for (const auto& c : cycles) {
                if (!c.escaped.empty() && !example) example = &c.escaped.front();
                if (!c.survived.empty() && !example) example = &c.survived.front();
            }
            if (escaped_processes > 0)
                s += std::to_string(cycles_with_escaped) + " of " + n + " starts left " +
                     std::to_string(escaped_processes) +
                     " process(es) outside the server's process group (setsid() or setpgid()), one more per "
                     "reconnect: a client that ends the server by closing stdin or signalling its group leaves "
                     "them running. This library found and killed them at close, as evidence";
            if (surviving_processes > 0)
                s += std::string(escaped_processes > 0 ? "; " : "") + std::to_string(surviving_processes) +
                     " process(es) of the server's tree were still alive after close";
            if (example)
                s += " (e.g. pid " + std::to_string(example->pid) + ", child of " + std::to_string(example->parent) +
                     ": `" + detail::short_command(example->command) + "`)";
            return s + ". Keep helpers in the server's process group (no start_new_session / setsid), or end "
                       "them when stdin closes; see cycles[].escaped for every pid and command.";
        }
        case churn_verdict::leaks_fds:
            return "LEAKS DESCRIPTORS: this test process held " + std::to_string(fds_after) + " file descriptors "
                   "after " + n + " cycles, " + std::to_string(fds_before) + " before (more than the " +
                   std::to_string(fd_tolerance) + " tolerated): each session leaves a pipe or socket open in "
                   "the client. See cycles[].test_fds for the trend; report it with the transport (" + transport +
                   ").";
        case churn_verdict::leaks_threads:
            return "LEAKS THREADS: this test process ran " + std::to_string(threads_after) + " threads after " + n +
                   " cycles, " + std::to_string(threads_before) + " before (more than the " +
                   std::to_string(thread_tolerance) + " tolerated): each session leaves a thread behind in the "
                   "client. See cycles[].test_threads for the trend.";
        case churn_verdict::slows_down:
            return "SLOWS DOWN: the last third of " + n + " cycles took a median " +
                   format_duration(last_third_median) + " each, the first third " +
                   format_duration(first_third_median) + " (" + timing +
                   "): every reconnect costs more, as if state accumulated across sessions (a growing cache or "
                   "log read at start, processes piling up). Compare cycles[].total with what the server does "
                   "at start.";
        case churn_verdict::clean: break;
    }
    std::string s = "CLEAN: " + what + " (" + timing + ")";
    if (interrupted)
        s += ", each interrupted mid-call (" + std::string(to_string(interruption)) + ", " +
             std::to_string(interruptions_landed) + " landed while the call ran) and the next session worked";
    s += processes_watched ? "; no process left the server's group or outlived close"
                           : "; server processes not watched (a network server: set churn_options::server_pid)";
    return s + "; this process's descriptors " + std::to_string(fds_before) + " -> " + std::to_string(fds_after) +
           ", threads " + std::to_string(threads_before) + " -> " + std::to_string(threads_after) + ".";
}

namespace detail {

MCP_LOADTEST_DECL std::chrono::nanoseconds nth_of_sorted(std::vector<std::chrono::nanoseconds> v, double q) {
    if (v.empty()) return std::chrono::nanoseconds(0);
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

struct self_usage {
    std::uint32_t fds = 0, threads = 0;
};
MCP_LOADTEST_DECL self_usage read_self_usage() noexcept {
    self_usage u;
    if (const auto r = read_proc(this_process_id())) {
        u.fds = r->open_fds;
        u.threads = r->threads;
    }
    return u;
}

MCP_LOADTEST_DECL churn_process churn_process_of(const proc_entry& p) {
    return churn_process{p.pid, p.parent, p.process_group, p.session, command_line(p.pid), false};
}

MCP_LOADTEST_DECL bool still_alive(const proc_entry& p) {
    const auto id = read_proc_identity(p.pid);
    return id && id->start_ticks == p.start_ticks && id->state != 'Z' && id->state != 'X' && id->state != 'x';
}

struct churn_job {
    any_server server;
    client_options client;
    churn_options o;
    raw_json args, slow_args;
    churn_report r{};

    asio::awaitable<churn_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.transport = transport_name(server);
        r.server = describe(server);
        r.call = o.tool ? o.tool : "ping";
        r.interruption = o.interrupt;
        const bool stdio = std::holds_alternative<stdio_server>(server);
        r.processes_watched = stdio || o.server_pid > 0;
        r.fd_tolerance = o.fd_tolerance ? o.fd_tolerance : std::max<std::size_t>(2, o.cycles / 2);
        r.thread_tolerance = o.thread_tolerance ? o.thread_tolerance : std::max<std::size_t>(2, o.cycles / 2);

        // A warm-up cycle first: the first connection creates what the client
        // keeps (Asio's reactor, a resolver thread, era caches).
        churn_cycle warm = co_await cycle(0, false);
        if (!warm.ok) {
            r.cycles.push_back(std::move(warm));
            r.failed_cycles = 1;
            r.verdict = churn_verdict::could_not_start;
            r.took = std::chrono::steady_clock::now() - t0;
            co_return std::move(r);
        }
        const auto before = read_self_usage();
        r.fds_before = before.fds;
        r.threads_before = before.threads;
        const bool interrupting = o.interrupt != churn_interruption::none;
        for (std::size_t i = 0; i < o.cycles; ++i) r.cycles.push_back(co_await cycle(i, interrupting));
        if (interrupting) r.cycles.push_back(co_await cycle(o.cycles, false));  // the session after the last one
        co_await settle_usage();
        judge();
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    // Descriptors and threads a close released may take a moment to go
    // (a thread still exiting): wait up to 1 s for them to fall within tolerance.
    asio::awaitable<void> settle_usage() {
        asio::steady_timer pause(co_await asio::this_coro::executor);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        for (;;) {
            const auto now = read_self_usage();
            r.fds_after = now.fds;
            r.threads_after = now.threads;
            const bool within = r.fds_after <= r.fds_before + r.fd_tolerance &&
                                r.threads_after <= r.threads_before + r.thread_tolerance;
            if (within || std::chrono::steady_clock::now() >= until) co_return;
            pause.expires_after(std::chrono::milliseconds(20));
            asio::error_code ec;
            co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    asio::awaitable<churn_cycle> cycle(std::size_t index, bool interrupt) {
        churn_cycle c;
        c.index = index;
        c.interrupted = interrupt;
        const auto start = std::chrono::steady_clock::now();
        // A network server's tree before the connection: what is new after close was left by it.
        std::vector<proc_entry> before;
        if (o.server_pid > 0 && !std::holds_alternative<stdio_server>(server)) before = process_tree_members(o.server_pid);

        session s;
        try {
            s = co_await connect(server, client);
        } catch (const std::exception& e) {
            c.failed_stage = "connect";
            c.failure = e.what();
        }
        if (!s.valid()) {
            c.total = std::chrono::steady_clock::now() - start;
            usage_into(c);
            co_return c;
        }
        c.connect_time = std::chrono::steady_clock::now() - start;
        const pid_t root = s.pid() > 0 ? s.pid() : o.server_pid;

        call_options call;
        call.timeout = o.call_timeout;
        call_result reply;
        if (o.tool) {
            const arguments a(args);
            reply = co_await s.call_tool(o.tool, a, call);
        } else {
            reply = co_await s.ping(call);
        }
        c.call_time = reply.duration;
        c.call_outcome = reply.outcome;
        c.ok = reply.outcome == outcome::ok || reply.outcome == outcome::tool_error;
        if (!c.ok) {
            c.failed_stage = "call";
            c.failure = reply.message.empty() ? std::string(to_string(reply.outcome)) : reply.message;
        }

        // The tree while the server lives (before any interruption kills it).
        std::vector<proc_entry> tree;
        if (root > 0) tree = process_tree_members(root);
        std::erase_if(tree, [](const proc_entry& p) { return p.dead(); });
        c.tree_processes = tree.size();
        if (s.pid() > 0)
            for (const auto& p : tree)
                if (p.pid != root && left_group(p, root)) c.escaped.push_back(churn_process_of(p));

        co_await reread_commands_in_exec(c.escaped);

        if (interrupt && c.ok) {
            std::vector<asio::awaitable<call_result>> both;
            call_options slow;
            slow.timeout = o.call_timeout;
            const arguments a(slow_args);
            both.push_back(s.call_tool(o.slow_tool, a, slow));
            both.push_back(interrupt_later(&s));
            auto results = co_await when_all(std::move(both));
            c.interrupted_outcome = results[0].outcome;
            if (results[0].outcome != outcome::ok && results[0].outcome != outcome::tool_error) ++r.interruptions_landed;
        }

        const auto close_start = std::chrono::steady_clock::now();
        const auto shut = co_await s.close();
        c.close_time = std::chrono::steady_clock::now() - close_start;
        c.shutdown = std::string(shutdown_result::name(shut.ended));

        // What outlived close: a signalled process may take a moment to die.
        std::vector<proc_entry> watched;
        if (s.pid() > 0) {
            for (const auto& p : tree)
                if (p.pid != root) watched.push_back(p);
        } else if (o.server_pid > 0) {
            const auto after = process_tree_members(o.server_pid);
            for (const auto& p : after)
                if (!p.dead() && p.pid != root &&
                    std::none_of(before.begin(), before.end(), [&](const proc_entry& b) {
                        return b.pid == p.pid && b.start_ticks == p.start_ticks;
                    }))
                    watched.push_back(p);
        }
        co_await wait_for_exit(watched, std::chrono::milliseconds(500));
        for (const auto& p : watched) {
            if (!still_alive(p)) continue;
            auto survivor = churn_process_of(p);
            survivor.alive_after_close = true;
            c.survived.push_back(std::move(survivor));
            for (auto& e : c.escaped)
                if (e.pid == p.pid) e.alive_after_close = true;
        }
        c.total = std::chrono::steady_clock::now() - start;
        usage_into(c);
        co_return c;
    }

    // A helper caught inside execve() shows as "[comm]" until its new command
    // line is set up (microseconds, more on a loaded machine): read it again.
    static asio::awaitable<void> reread_commands_in_exec(std::vector<churn_process>& procs) {
        asio::steady_timer pause(co_await asio::this_coro::executor);
        for (int attempt = 0; attempt < 20; ++attempt) {
            bool pending = false;
            for (auto& p : procs)
                if (p.command.starts_with('[')) {
                    if (auto now = command_line(p.pid); !now.empty()) p.command = std::move(now);
                    pending = pending || p.command.starts_with('[');
                }
            if (!pending) co_return;
            pause.expires_after(std::chrono::milliseconds(5));
            asio::error_code ec;
            co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    static void usage_into(churn_cycle& c) {
        const auto u = read_self_usage();
        c.test_fds = u.fds;
        c.test_threads = u.threads;
    }

    static asio::awaitable<void> wait_for_exit(const std::vector<proc_entry>& procs, std::chrono::milliseconds bound) {
        asio::steady_timer pause(co_await asio::this_coro::executor);
        const auto until = std::chrono::steady_clock::now() + bound;
        while (std::any_of(procs.begin(), procs.end(), still_alive) && std::chrono::steady_clock::now() < until) {
            pause.expires_after(std::chrono::milliseconds(5));
            asio::error_code ec;
            co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    // The second branch beside the slow call: waits, then kills the server or closes the session.
    asio::awaitable<call_result> interrupt_later(session* s) {
        asio::steady_timer pause(co_await asio::this_coro::executor);
        pause.expires_after(o.interrupt_after);
        asio::error_code ec;
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (o.interrupt == churn_interruption::kill_mid_call) {
            if (s->pid() > 0 && s->alive()) kill_process(s->pid());
        } else {
            co_await s->close();
        }
        co_return call_result{};
    }

    void judge() {
        std::vector<std::chrono::nanoseconds> totals;
        for (std::size_t i = 0; i < r.cycles.size(); ++i) {
            const auto& c = r.cycles[i];
            if (!c.ok) ++r.failed_cycles;
            if (!c.escaped.empty()) ++r.cycles_with_escaped;
            r.escaped_processes += c.escaped.size();
            r.surviving_processes += c.survived.size();
            if (c.index < o.cycles && c.ok) totals.push_back(c.total);
        }
        r.cycle_median = nth_of_sorted(totals, 0.5);
        r.cycle_p90 = nth_of_sorted(totals, 0.9);
        r.cycle_max = nth_of_sorted(totals, 1.0);
        const std::size_t third = totals.size() / 3;
        if (third > 0) {
            const auto k = static_cast<std::ptrdiff_t>(third);
            r.first_third_median = nth_of_sorted(std::vector(totals.begin(), totals.begin() + k), 0.5);
            r.last_third_median = nth_of_sorted(std::vector(totals.end() - k, totals.end()), 0.5);
        }
        if (r.failed_cycles > 0) r.verdict = churn_verdict::reconnect_failed;
        else if (r.escaped_processes > 0 || r.surviving_processes > 0) r.verdict = churn_verdict::leaves_processes;
        else if (r.fds_after > r.fds_before + r.fd_tolerance) r.verdict = churn_verdict::leaks_fds;
        else if (r.threads_after > r.threads_before + r.thread_tolerance) r.verdict = churn_verdict::leaks_threads;
        // Several times slower, by a margin no scheduling noise gives: 3x and 250 ms.
        else if (third > 0 && r.last_third_median > 3 * r.first_third_median &&
                 r.last_third_median - r.first_third_median > std::chrono::milliseconds(250))
            r.verdict = churn_verdict::slows_down;
        else r.verdict = churn_verdict::clean;
    }
};

MCP_LOADTEST_DECL raw_json churn_arguments(const char* text, const char* which) {
    json parsed;
    try {
        parsed = json::parse(text ? text : "{}");
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("session_churn: churn_options::") + which +
                                    " must be a JSON object's text, like R\"({\"ms\": 2000})\": " + e.what());
    }
    if (!parsed.is_object())
        throw std::invalid_argument(std::string("session_churn: churn_options::") + which +
                                    " must be a JSON object's text, like R\"({\"ms\": 2000})\"");
    return raw_json::from(parsed);
}

}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server, churn_options options, client_options client) {
    if (options.cycles == 0) throw std::invalid_argument("session_churn: churn_options::cycles must be at least 1");
    if (options.interrupt != churn_interruption::none && !options.slow_tool)
        throw std::invalid_argument("session_churn: an interruption needs churn_options::slow_tool, a tool that "
                                    "runs longer than interrupt_after (e.g. a sleep tool)");
    if (options.interrupt == churn_interruption::kill_mid_call && !std::holds_alternative<stdio_server>(server))
        throw std::invalid_argument("session_churn: kill_mid_call kills a server the test spawned (stdio); for a "
                                    "network server use close_mid_call, which drops the connection");
    auto args = detail::churn_arguments(options.arguments, "arguments");
    auto slow_args = detail::churn_arguments(options.slow_arguments, "slow_arguments");
    return detail::start_owned(
        detail::churn_job{std::move(server), std::move(client), options, std::move(args), std::move(slow_args)});
}

MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server, churn_options options) {
    return session_churn(std::move(server), options, client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server) {
    return session_churn(std::move(server), churn_options{}, client_options{});
}

MCP_LOADTEST_DECL void to_json(json& j, const churn_process& p) {
    j = json{{"pid", p.pid},         {"parent", p.parent},   {"process_group", p.process_group},
             {"session", p.session}, {"command", p.command}, {"alive_after_close", p.alive_after_close}};
}

MCP_LOADTEST_DECL void from_json(const json& j, churn_process& p) {
    p.pid = j.at("pid").get<pid_t>();
    p.parent = j.at("parent").get<pid_t>();
    p.process_group = j.at("process_group").get<pid_t>();
    p.session = j.at("session").get<pid_t>();
    p.command = j.at("command").get<std::string>();
    p.alive_after_close = j.at("alive_after_close").get<bool>();
}

MCP_LOADTEST_DECL void to_json(json& j, const churn_cycle& c) {
    j = json{{"index", c.index},
             {"interrupted", c.interrupted},
             {"ok", c.ok},
             {"failed_stage", c.failed_stage},
             {"failure", c.failure},
             {"connect_time_ns", c.connect_time.count()},
             {"call_time_ns", c.call_time.count()},
             {"close_time_ns", c.close_time.count()},
             {"total_ns", c.total.count()},
             {"call_outcome", to_string(c.call_outcome)},
             {"interrupted_outcome", c.interrupted_outcome ? json(to_string(*c.interrupted_outcome)) : json()},
             {"shutdown", c.shutdown},
             {"tree_processes", c.tree_processes},
             {"escaped", c.escaped},
             {"survived", c.survived},
             {"test_fds", c.test_fds},
             {"test_threads", c.test_threads}};
}

MCP_LOADTEST_DECL void from_json(const json& j, churn_cycle& c) {
    c.index = j.at("index").get<std::size_t>();
    c.interrupted = j.at("interrupted").get<bool>();
    c.ok = j.at("ok").get<bool>();
    c.failed_stage = j.at("failed_stage").get<std::string>();
    c.failure = j.at("failure").get<std::string>();
    c.connect_time = std::chrono::nanoseconds(j.at("connect_time_ns").get<std::int64_t>());
    c.call_time = std::chrono::nanoseconds(j.at("call_time_ns").get<std::int64_t>());
    c.close_time = std::chrono::nanoseconds(j.at("close_time_ns").get<std::int64_t>());
    c.total = std::chrono::nanoseconds(j.at("total_ns").get<std::int64_t>());
    c.call_outcome = outcome_from_name(j.at("call_outcome").get<std::string>());
    const auto& io = j.at("interrupted_outcome");
    c.interrupted_outcome = io.is_null() ? std::nullopt : std::optional(outcome_from_name(io.get<std::string>()));
    c.shutdown = j.at("shutdown").get<std::string>();
    c.tree_processes = j.at("tree_processes").get<std::size_t>();
    c.escaped = j.at("escaped").get<std::vector<churn_process>>();
    c.survived = j.at("survived").get<std::vector<churn_process>>();
    c.test_fds = j.at("test_fds").get<std::uint32_t>();
    c.test_threads = j.at("test_threads").get<std::uint32_t>();
}

MCP_LOADTEST_DECL void to_json(json& j, const churn_report& r) {
    j = json{{"verdict", to_string(r.verdict)},
             {"passed", r.passed()},
             {"verdict_sentence", r.verdict_sentence()},
             {"transport", r.transport},
             {"server", r.server},
             {"call", r.call},
             {"interruption", to_string(r.interruption)},
             {"processes_watched", r.processes_watched},
             {"cycles", r.cycles},
             {"failed_cycles", r.failed_cycles},
             {"cycles_with_escaped", r.cycles_with_escaped},
             {"escaped_processes", r.escaped_processes},
             {"surviving_processes", r.surviving_processes},
             {"interruptions_landed", r.interruptions_landed},
             {"cycle_median_ns", r.cycle_median.count()},
             {"cycle_p90_ns", r.cycle_p90.count()},
             {"cycle_max_ns", r.cycle_max.count()},
             {"first_third_median_ns", r.first_third_median.count()},
             {"last_third_median_ns", r.last_third_median.count()},
             {"fds_before", r.fds_before},
             {"fds_after", r.fds_after},
             {"threads_before", r.threads_before},
             {"threads_after", r.threads_after},
             {"fd_tolerance", r.fd_tolerance},
             {"thread_tolerance", r.thread_tolerance},
             {"took_ns", r.took.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, churn_report& r) {
    const auto verdict = j.at("verdict").get<std::string>();
    bool known = false;
    for (auto v : {churn_verdict::clean, churn_verdict::leaves_processes, churn_verdict::leaks_fds,
                   churn_verdict::leaks_threads, churn_verdict::slows_down, churn_verdict::reconnect_failed,
                   churn_verdict::could_not_start})
        if (to_string(v) == verdict) {
            r.verdict = v;
            known = true;
        }
    if (!known) throw std::invalid_argument("churn_report: unknown verdict \"" + verdict + "\"");
    const auto interruption = j.at("interruption").get<std::string>();
    known = false;
    for (auto i : {churn_interruption::none, churn_interruption::close_mid_call, churn_interruption::kill_mid_call})
        if (to_string(i) == interruption) {
            r.interruption = i;
            known = true;
        }
    if (!known) throw std::invalid_argument("churn_report: unknown interruption \"" + interruption + "\"");
    r.transport = j.at("transport").get<std::string>();
    r.server = j.at("server").get<std::string>();
    r.call = j.at("call").get<std::string>();
    r.processes_watched = j.at("processes_watched").get<bool>();
    r.cycles = j.at("cycles").get<std::vector<churn_cycle>>();
    r.failed_cycles = j.at("failed_cycles").get<std::size_t>();
    r.cycles_with_escaped = j.at("cycles_with_escaped").get<std::size_t>();
    r.escaped_processes = j.at("escaped_processes").get<std::size_t>();
    r.surviving_processes = j.at("surviving_processes").get<std::size_t>();
    r.interruptions_landed = j.at("interruptions_landed").get<std::size_t>();
    r.cycle_median = std::chrono::nanoseconds(j.at("cycle_median_ns").get<std::int64_t>());
    r.cycle_p90 = std::chrono::nanoseconds(j.at("cycle_p90_ns").get<std::int64_t>());
    r.cycle_max = std::chrono::nanoseconds(j.at("cycle_max_ns").get<std::int64_t>());
    r.first_third_median = std::chrono::nanoseconds(j.at("first_third_median_ns").get<std::int64_t>());
    r.last_third_median = std::chrono::nanoseconds(j.at("last_third_median_ns").get<std::int64_t>());
    r.fds_before = j.at("fds_before").get<std::uint32_t>();
    r.fds_after = j.at("fds_after").get<std::uint32_t>();
    r.threads_before = j.at("threads_before").get<std::uint32_t>();
    r.threads_after = j.at("threads_after").get<std::uint32_t>();
    r.fd_tolerance = j.at("fd_tolerance").get<std::size_t>();
    r.thread_tolerance = j.at("thread_tolerance").get<std::size_t>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

}  // namespace mcp_loadtest
