// Sampling servers' RSS, CPU, open descriptors and threads from Linux /proc
// while a test drives them: the input of the leak detector (leak_detection.hpp)
// and of the process figures of a report (docs/load-testing.md#process-sampling-and-leak-detection).
//
//     mlt::process_sampler sampler(co_await asio::this_coro::executor, 50ms);
//     sampler.add(session.pid(), "my_server");
//     sampler.start();
//     ... drive the server ...
//     sampler.stop();
//     mlt::process_stats stats = mlt::summarize(sampler.samples_of(session.pid()));
//
// Each tick also finds every added process's descendants (worker processes,
// the real server behind an `npx` or `uv run` wrapper: detail/process_tree.hpp)
// and samples them too: descendants_of(pid) lists them, tree_samples_of(pid)
// holds the whole tree's samples (summarize() adds up each tick's).
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/procfs.hpp>
#include <mcp_loadtest/detail/process_tree.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/process_audit.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// One reading of one process.
struct process_sample {
    std::chrono::nanoseconds at{0};  ///< offset from the sampler's start (0 from read_process)
    pid_t pid = 0;
    double rss_mb = 0;               ///< resident set size in MiB (VmRSS)
    double cpu_pct = 0;              ///< user+system CPU since this pid's previous sample, in % of one core (first: 0)
    std::uint32_t open_fds = 0;      ///< entries of /proc/<pid>/fd (0 if another user's process)
    std::uint32_t threads = 0;
};

/// Reads a process now. nullopt if it is gone, a zombie, or unreadable; never
/// throws. `at` and `cpu_pct` are 0: CPU use needs two readings (a sampler).
[[nodiscard]] inline std::optional<process_sample> read_process(pid_t pid) noexcept {
    const auto r = detail::read_proc(pid);
    if (!r) return std::nullopt;
    process_sample s;
    s.pid = pid;
    s.rss_mb = static_cast<double>(r->rss_bytes) / (1024.0 * 1024.0);
    s.open_fds = r->open_fds;
    s.threads = r->threads;
    return s;
}

/// A process found below an added one (a worker, a wrapper's server).
struct sampled_descendant {
    pid_t pid = 0;
    pid_t parent = 0;     ///< when last seen
    pid_t root = 0;       ///< the added process it descends from
    std::string command;  ///< its command line (detail::command_line) when first seen
    bool exited = false;
};

/// Figures over a run, for one process or for several taken together.
struct process_stats {
    double peak_rss_mb = 0;
    double final_rss_mb = 0;
    double avg_cpu_pct = 0;    ///< CPU time used / wall time sampled, in % of one core
    std::uint32_t peak_fds = 0;
    std::uint32_t final_fds = 0;
    std::uint32_t peak_threads = 0;
    std::size_t samples = 0;
};

/// Summarizes samples in time order (as a sampler records them). Samples of
/// several pids taken at the same instant (one sampler tick) are added up, so
/// `summarize(sampler.samples())` describes all the servers together and
/// `summarize(sampler.samples_of(pid))` one of them. The average CPU is
/// weighted by the time each sample covers; each pid's first sample covers none.
[[nodiscard]] inline process_stats summarize(const std::vector<process_sample>& samples) {
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

/// Samples a changing set of processes every `interval` on an Asio executor
/// until stopped. Reading /proc takes microseconds, so it happens inline in
/// the timer's handler. Like Asio's own objects it is not thread-safe: use it
/// from its executor's thread (an MCP_LOADTEST_CASE body is). Destroying it
/// while its timer is pending is safe.
///
/// Memory is bounded: when `max_samples` is reached, every other sample of
/// each pid is dropped (the CPU of a dropped one is merged into the next) and
/// the interval doubles, so a long run keeps covering the whole run at a
/// coarser grain rather than losing its end.
class process_sampler {
public:
    process_sampler(asio::any_io_executor ex, std::chrono::milliseconds interval, std::size_t max_samples = 100'000)
        : state_(std::make_shared<state>(std::move(ex), interval, max_samples)) {}
    ~process_sampler() {
        if (state_) stop();  // the timer's pending handler only holds a weak_ptr
    }
    process_sampler(const process_sampler&) = delete;
    process_sampler& operator=(const process_sampler&) = delete;
    /// A moved-from sampler may only be destroyed or assigned to.
    process_sampler(process_sampler&&) noexcept = default;
    process_sampler& operator=(process_sampler&& other) noexcept {
        if (this != &other) {
            if (state_) stop();
            state_ = std::move(other.state_);
        }
        return *this;
    }

    /// Samples this pid from the next tick (or from start()) until it exits.
    /// Adding a pid again after its process exited follows the new process
    /// that reused the pid; adding a live one again only renames it.
    void add(pid_t pid, std::string label = {}) {
        for (auto& t : state_->tracked) {
            if (t.pid != pid) continue;
            if (t.gone) t = tracked_pid{pid, std::move(label), pid};
            else if (!label.empty()) t.label = std::move(label);
            return;
        }
        state_->tracked.push_back(tracked_pid{pid, std::move(label), pid});
    }

    /// Takes a first sample now, then one every interval. No-op while running.
    /// After stop(), resumes with the same origin for `at`.
    void start() {
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

    /// Stops sampling (idempotent); the samples stay.
    void stop() {
        auto& st = *state_;
        st.running = false;
        st.timer.cancel();
    }

    [[nodiscard]] bool running() const noexcept { return state_->running; }
    /// The current interval (it doubles each time max_samples is reached).
    [[nodiscard]] std::chrono::steady_clock::duration interval() const noexcept { return state_->interval; }

    /// All samples of all pids, in time order.
    [[nodiscard]] const std::vector<process_sample>& samples() const noexcept { return state_->samples; }

    [[nodiscard]] std::vector<process_sample> samples_of(pid_t pid) const {
        std::vector<process_sample> out;
        for (const auto& s : state_->samples)
            if (s.pid == pid) out.push_back(s);
        return out;
    }

    /// Whether each tick also samples the descendants of every added process
    /// (default on). Finding them reads each added process's children (a few
    /// microseconds) and, while any has children, all of /proc once per tick
    /// (about 1 ms per 100 processes), so a process group or session a worker
    /// left is still followed.
    void follow_descendants(bool on) noexcept { state_->follow_tree = on; }
    [[nodiscard]] bool follows_descendants() const noexcept { return state_->follow_tree; }

    /// The descendants of an added process sampled so far, in the order found.
    [[nodiscard]] std::vector<sampled_descendant> descendants_of(pid_t root) const {
        std::vector<sampled_descendant> out;
        for (const auto& t : state_->tracked)
            if (t.root == root && t.pid != root) out.push_back({t.pid, t.parent, t.root, t.label, t.gone});
        return out;
    }

    /// The samples of an added process and of all its descendants, in time
    /// order: summarize() of them describes its whole tree.
    [[nodiscard]] std::vector<process_sample> tree_samples_of(pid_t root) const {
        std::vector<pid_t> pids;
        for (const auto& t : state_->tracked)
            if (t.root == root) pids.push_back(t.pid);
        std::vector<process_sample> out;
        for (const auto& s : state_->samples)
            if (std::find(pids.begin(), pids.end(), s.pid) != pids.end()) out.push_back(s);
        return out;
    }

    /// The label given to add() (for a descendant: its command line), or empty.
    [[nodiscard]] std::string label_of(pid_t pid) const {
        for (const auto& t : state_->tracked)
            if (t.pid == pid) return t.label;
        return {};
    }

    /// True once the pid's process was found gone; it is no longer sampled.
    [[nodiscard]] bool exited(pid_t pid) const noexcept {
        for (const auto& t : state_->tracked)
            if (t.pid == pid) return t.gone;
        return false;
    }

private:
    using clock = std::chrono::steady_clock;

    struct tracked_pid {
        pid_t pid = 0;
        std::string label;
        pid_t root = 0;    // the added process (itself for one added)
        pid_t parent = 0;  // a descendant's, when last seen
        bool gone = false;
        bool seen = false;             // sampled at least once: the fields below are set
        std::uint64_t start_ticks = 0;
        std::uint64_t cpu_ticks = 0;
        clock::time_point last{};
    };

    struct state {
        state(asio::any_io_executor ex, std::chrono::milliseconds every, std::size_t max)
            : timer(std::move(ex)),
              interval(std::max(every, std::chrono::milliseconds(1))),
              max_samples(std::max<std::size_t>(max, 16)) {}
        asio::steady_timer timer;
        clock::duration interval;
        std::size_t max_samples;
        bool running = false;
        bool started = false;
        bool follow_tree = true;
        std::uint64_t generation = 0;
        clock::time_point origin{};
        clock::time_point next{};
        std::vector<tracked_pid> tracked;
        std::vector<process_sample> samples;
    };

    static void arm(const std::shared_ptr<state>& st) {
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

    static constexpr std::size_t max_descendants_per_root = 64;

    // Adds the descendants of every added process not yet tracked. The whole
    // of /proc is read only while some added process has children, or has
    // live descendants already tracked (whose links may have changed).
    static void find_descendants(state& st) {
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

    static void sample(state& st, clock::time_point now) {
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
                const double cpu = static_cast<double>(r->cpu_ticks - std::min(r->cpu_ticks, t.cpu_ticks)) /
                                   static_cast<double>(detail::clock_ticks_per_second());
                s.cpu_pct = wall > 0 ? cpu / wall * 100.0 : 0.0;
            }
            // A server's helpers may leave its process group: each tick keeps
            // the audit's view of its tree fresh (a no-op for other pids).
            process_audit::note_descendants(t.pid);
            t.seen = true;
            t.start_ticks = r->start_ticks;
            t.cpu_ticks = r->cpu_ticks;
            t.last = now;
            st.samples.push_back(s);
        }
        if (st.samples.size() >= st.max_samples) thin(st);
    }

    // Drops every other sample of each pid (keeping each one's first), folding
    // a dropped sample's CPU into the next kept one, and halves the rate.
    static void thin(state& st) {
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

    std::shared_ptr<state> state_;
};

// ---- JSON (durations as integer nanoseconds) --------------------------------

inline void to_json(json& j, const process_sample& s) {
    j = json{{"at_ns", s.at.count()},     {"pid", s.pid},           {"rss_mb", s.rss_mb},
             {"cpu_pct", s.cpu_pct},      {"open_fds", s.open_fds}, {"threads", s.threads}};
}
inline void from_json(const json& j, process_sample& s) {
    s.at = std::chrono::nanoseconds(j.at("at_ns").get<std::int64_t>());
    s.pid = j.at("pid").get<pid_t>();
    s.rss_mb = j.at("rss_mb").get<double>();
    s.cpu_pct = j.at("cpu_pct").get<double>();
    s.open_fds = j.at("open_fds").get<std::uint32_t>();
    s.threads = j.at("threads").get<std::uint32_t>();
}

inline void to_json(json& j, const process_stats& s) {
    j = json{{"peak_rss_mb", s.peak_rss_mb}, {"final_rss_mb", s.final_rss_mb}, {"avg_cpu_pct", s.avg_cpu_pct},
             {"peak_fds", s.peak_fds},       {"final_fds", s.final_fds},       {"peak_threads", s.peak_threads},
             {"samples", s.samples}};
}
inline void from_json(const json& j, process_stats& s) {
    s.peak_rss_mb = j.at("peak_rss_mb").get<double>();
    s.final_rss_mb = j.at("final_rss_mb").get<double>();
    s.avg_cpu_pct = j.at("avg_cpu_pct").get<double>();
    s.peak_fds = j.at("peak_fds").get<std::uint32_t>();
    s.final_fds = j.at("final_fds").get<std::uint32_t>();
    s.peak_threads = j.at("peak_threads").get<std::uint32_t>();
    s.samples = j.at("samples").get<std::size_t>();
}

}  // namespace mcp_loadtest
