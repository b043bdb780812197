// Definitions of process_sampling.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/process_sampling.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>
#include <mcp_loadtest/process_audit.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::optional<process_sample> read_process(pid_t pid) noexcept {
    const auto r = detail::read_proc(pid);
    if (!r) return std::nullopt;
    process_sample s;
    s.pid = pid;
    s.rss_mb = static_cast<double>(r->rss_bytes) / (1024.0 * 1024.0);
    s.open_fds = r->open_fds;
    s.threads = r->threads;
    return s;
}

MCP_LOADTEST_DECL process_stats summarize(const std::vector<process_sample>& samples) {
    process_stats st;
    st.samples = samples.size();
    if (samples.empty()) return st;
    std::unordered_map<pid_t, std::chrono::nanoseconds> previous_at;
    double core_seconds = 0;
    for (std::size_t i = 0; i < samples.size();) {
        const auto at = samples[i].at;
        double rss = 0;
        std::uint32_t fds = 0, threads = 0;
        for (; i < samples.size() && samples[i].at == at; ++i) {
            const auto& s = samples[i];
            rss += s.rss_mb;
            fds += s.open_fds;
            threads += s.threads;
            const auto [prev, first] = previous_at.try_emplace(s.pid, s.at);
            if (!first) {
                core_seconds += s.cpu_pct / 100.0 * std::chrono::duration<double>(s.at - prev->second).count();
                prev->second = s.at;
            }
        }
        st.peak_rss_mb = std::max(st.peak_rss_mb, rss);
        st.peak_fds = std::max(st.peak_fds, fds);
        st.peak_threads = std::max(st.peak_threads, threads);
        st.final_rss_mb = rss;
        st.final_fds = fds;
    }
    const double span = std::chrono::duration<double>(samples.back().at - samples.front().at).count();
    st.avg_cpu_pct = span > 0 ? core_seconds / span * 100.0 : 0.0;
    return st;
}

MCP_LOADTEST_DECL process_sampler::process_sampler(asio::any_io_executor ex, std::chrono::milliseconds interval, std::size_t max_samples)
    : state_(std::make_shared<state>(std::move(ex), interval, max_samples)) {}

MCP_LOADTEST_DECL process_sampler::~process_sampler() {
    if (state_) stop();  // the timer's pending handler only holds a weak_ptr
}

MCP_LOADTEST_DECL process_sampler& process_sampler::operator=(process_sampler&& other) noexcept {
    if (this != &other) {
        if (state_) stop();
        state_ = std::move(other.state_);
    }
    return *this;
}

MCP_LOADTEST_DECL void process_sampler::add(pid_t pid, std::string label) {
    for (auto& t : state_->tracked) {
        if (t.pid != pid) continue;
        if (t.gone) t = tracked_pid{pid, std::move(label), pid};
        else if (!label.empty()) t.label = std::move(label);
        return;
    }
    state_->tracked.push_back(tracked_pid{pid, std::move(label), pid});
}

MCP_LOADTEST_DECL void process_sampler::start() {
    auto& st = *state_;
    if (st.running) return;
    st.running = true;
    ++st.generation;  // a tick already queued by an earlier run must not start a second chain
    const auto now = std::chrono::steady_clock::now();
    if (!st.started) {
        st.started = true;
        st.origin = now;
    }
    sample(st, now);
    st.next = now + st.interval;
    arm(state_);
}

MCP_LOADTEST_DECL void process_sampler::stop() {
    auto& st = *state_;
    st.running = false;
    st.timer.cancel();
}

MCP_LOADTEST_DECL std::vector<process_sample> process_sampler::samples_of(pid_t pid) const {
    std::vector<process_sample> out;
    for (const auto& s : state_->samples)
        if (s.pid == pid) out.push_back(s);
    return out;
}

MCP_LOADTEST_DECL std::vector<sampled_descendant> process_sampler::descendants_of(pid_t root) const {
    std::vector<sampled_descendant> out;
    for (const auto& t : state_->tracked)
        if (t.root == root && t.pid != root) out.push_back({t.pid, t.parent, t.root, t.label, t.gone});
    return out;
}

MCP_LOADTEST_DECL std::vector<process_sample> process_sampler::tree_samples_of(pid_t root) const {
    std::vector<pid_t> pids;
    for (const auto& t : state_->tracked)
        if (t.root == root) pids.push_back(t.pid);
    std::vector<process_sample> out;
    for (const auto& s : state_->samples)
        if (std::find(pids.begin(), pids.end(), s.pid) != pids.end()) out.push_back(s);
    return out;
}

MCP_LOADTEST_DECL std::string process_sampler::label_of(pid_t pid) const {
    for (const auto& t : state_->tracked)
        if (t.pid == pid) return t.label;
    return {};
}

MCP_LOADTEST_DECL bool process_sampler::exited(pid_t pid) const noexcept {
    for (const auto& t : state_->tracked)
        if (t.pid == pid) return t.gone;
    return false;
}

MCP_LOADTEST_DECL process_sampler::state::state(asio::any_io_executor ex, std::chrono::milliseconds every, std::size_t max)
    : timer(std::move(ex)),
      interval(std::max(every, std::chrono::milliseconds(1))),
      max_samples(std::max<std::size_t>(max, 16)) {}

MCP_LOADTEST_DECL void process_sampler::arm(const std::shared_ptr<state>& st) {
    st->timer.expires_at(st->next);
    st->timer.async_wait([weak = std::weak_ptr<state>(st), gen = st->generation](const asio::error_code& ec) {
        const auto self = weak.lock();
        if (!self || ec || !self->running || gen != self->generation) return;
        const auto now = clock::now();
        sample(*self, now);
        // Keep the cadence; after a stall (a busy loop), resume from now rather than catching up in a burst.
        self->next += self->interval;
        if (self->next <= now) self->next = now + self->interval;
        arm(self);
    });
}

MCP_LOADTEST_DECL void process_sampler::find_descendants(state& st) {
    bool any = false;
    for (const auto& t : st.tracked) {
        if (t.gone) continue;
        if (t.root != t.pid || !detail::children_of(t.pid).empty()) {
            any = true;
            break;
        }
    }
    if (!any) return;
    const auto snapshot = detail::snapshot_processes();
    const std::size_t added = st.tracked.size();
    for (std::size_t i = 0; i < added; ++i) {
        if (st.tracked[i].gone || st.tracked[i].root != st.tracked[i].pid) continue;
        const pid_t root = st.tracked[i].pid;
        std::size_t count = 0;
        for (const auto& m : detail::process_tree_members(root, snapshot)) {
            if (m.pid == root || m.dead()) continue;
            if (++count > max_descendants_per_root) break;
            auto known = std::find_if(st.tracked.begin(), st.tracked.end(),
                                      [&](const tracked_pid& t) { return t.pid == m.pid && !t.gone; });
            if (known != st.tracked.end()) {
                if (known->root != known->pid) {
                    known->parent = m.parent;
                    // Read inside execve(): its real command line is there by now.
                    if (known->label.starts_with('[')) known->label = detail::command_line(m.pid);
                }
                continue;
            }
            tracked_pid d{m.pid, detail::command_line(m.pid), root};
            d.parent = m.parent;
            st.tracked.push_back(std::move(d));
        }
    }
}

MCP_LOADTEST_DECL void process_sampler::sample(state& st, clock::time_point now) {
    const auto at = std::chrono::duration_cast<std::chrono::nanoseconds>(now - st.origin);
    if (st.follow_tree) find_descendants(st);
    for (auto& t : st.tracked) {
        if (t.gone) continue;
        const auto r = detail::read_proc(t.pid);
        if (!r || (t.seen && r->start_ticks != t.start_ticks)) {  // exited, or exited and the pid was reused
            t.gone = true;
            continue;
        }
        process_sample s;
        s.at = at;
        s.pid = t.pid;
        s.rss_mb = static_cast<double>(r->rss_bytes) / (1024.0 * 1024.0);
        s.open_fds = r->open_fds;
        s.threads = r->threads;
        if (t.seen) {
            const double wall = std::chrono::duration<double>(now - t.last).count();
            const double cpu = std::chrono::duration<double>(r->cpu_time - std::min(r->cpu_time, t.cpu_time)).count();
            s.cpu_pct = wall > 0 ? cpu / wall * 100.0 : 0.0;
        }
        // A server's helpers may leave its process group: each tick keeps
        // the audit's view of its tree fresh (a no-op for other pids).
        process_audit::note_descendants(t.pid);
        t.seen = true;
        t.start_ticks = r->start_ticks;
        t.cpu_time = r->cpu_time;
        t.last = now;
        st.samples.push_back(s);
    }
    if (st.samples.size() >= st.max_samples) thin(st);
}

MCP_LOADTEST_DECL void process_sampler::thin(state& st) {
    struct cursor {
        std::size_t count = 0;
        std::chrono::nanoseconds prev_at{0};  // of the previous sample, kept or not
        double core_ns = 0;                   // CPU of dropped samples not yet folded in
        std::chrono::nanoseconds span{0};
    };
    std::unordered_map<pid_t, cursor> cursors;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < st.samples.size(); ++i) {
        auto s = st.samples[i];
        auto& c = cursors[s.pid];
        const auto covered = c.count == 0 ? std::chrono::nanoseconds(0) : s.at - c.prev_at;
        c.prev_at = s.at;
        if (c.count++ % 2 == 1) {
            c.core_ns += s.cpu_pct * static_cast<double>(covered.count());
            c.span += covered;
            continue;
        }
        const auto total = c.span + covered;
        if (total.count() > 0)
            s.cpu_pct = (c.core_ns + s.cpu_pct * static_cast<double>(covered.count())) /
                        static_cast<double>(total.count());
        c.core_ns = 0;
        c.span = std::chrono::nanoseconds(0);
        st.samples[kept++] = s;
    }
    st.samples.resize(kept);
    st.interval *= 2;
}

// ---- JSON (durations as integer nanoseconds) --------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const process_sample& s) {
    j = json{{"at_ns", s.at.count()},     {"pid", s.pid},           {"rss_mb", s.rss_mb},
             {"cpu_pct", s.cpu_pct},      {"open_fds", s.open_fds}, {"threads", s.threads}};
}

MCP_LOADTEST_DECL void from_json(const json& j, process_sample& s) {
    s.at = std::chrono::nanoseconds(j.at("at_ns").get<std::int64_t>());
    s.pid = j.at("pid").get<pid_t>();
    s.rss_mb = j.at("rss_mb").get<double>();
    s.cpu_pct = j.at("cpu_pct").get<double>();
    s.open_fds = j.at("open_fds").get<std::uint32_t>();
    s.threads = j.at("threads").get<std::uint32_t>();
}

MCP_LOADTEST_DECL void to_json(json& j, const process_stats& s) {
    j = json{{"peak_rss_mb", s.peak_rss_mb}, {"final_rss_mb", s.final_rss_mb}, {"avg_cpu_pct", s.avg_cpu_pct},
             {"peak_fds", s.peak_fds},       {"final_fds", s.final_fds},       {"peak_threads", s.peak_threads},
             {"samples", s.samples}};
}

MCP_LOADTEST_DECL void from_json(const json& j, process_stats& s) {
    s.peak_rss_mb = j.at("peak_rss_mb").get<double>();
    s.final_rss_mb = j.at("final_rss_mb").get<double>();
    s.avg_cpu_pct = j.at("avg_cpu_pct").get<double>();
    s.peak_fds = j.at("peak_fds").get<std::uint32_t>();
    s.final_fds = j.at("final_fds").get<std::uint32_t>();
    s.peak_threads = j.at("peak_threads").get<std::uint32_t>();
    s.samples = j.at("samples").get<std::size_t>();
}

}  // namespace mcp_loadtest
