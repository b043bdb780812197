// End-to-end throughput of mcp-loadtest against a hand-written raw driver
// (raw_driver.hpp), measured in the same run against the same fast stdio server
// (fast_echo_server.cpp), two ways: `co_await call_tool` in W user coroutines on
// one session ("loop"), and mlt::run() with a closed load of W users on one
// session, no trace, no sampling ("run()"); memory per in-flight call with 100,000
// calls in flight; and a fixed-work mode for counting instructions per request
// under callgrind (instructions_per_request.sh).
//
//     bench_throughput [options]
//       --seconds S         length of one measured run (default 0.5)
//       --runs R            measured runs per figure; the median is reported (default 5)
//       --windows 1,16,...  calls in flight (default 1,16,64,256)
//       --cpu N             the CPU that driver and server share when pinned (default 0)
//       --pinned-only / --unpinned-only
//       --in-flight N       calls for the memory test (default 100000; 0 skips it)
//       --server PATH       the fast server (default: the one built alongside)
//       --smoke             a few seconds in all (CI): 0.05 s runs, 2 runs, 2,000 in flight
//       --verbose           print every run
//       --sustained S       then 64 in flight for S s (default 4; 0 skips) with a per-call
//                           timeout of --sustained-timeout T s (default 1): req/s and RSS per second
//     bench_throughput --memory-only N [--when-all]   the memory test alone (a fresh process)
//     bench_throughput --count N [--raw | --run]      exactly N requests at 64 in flight, nothing
//                                                     else (for callgrind): the loop, the raw
//                                                     driver, or run() (N iterations)
//     bench_throughput --count N --floor await|callback   N calls at 64 in flight with no I/O:
//                                                     what co_await itself costs per call
//                                                     (awaitable_floor.hpp), or callbacks
//
// It prints figures and the targets they are compared with; it asserts no
// timing. It exits non-zero only if a call failed (a correctness check).
#include "awaitable_floor.hpp"
#include "raw_driver.hpp"

#include <mcp_loadtest/mcp_loadtest.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <memory>
#include <sched.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef FAST_ECHO_SERVER
#define FAST_ECHO_SERVER "fast_echo_server"
#endif

namespace mlt = mcp_loadtest;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct config {
    double seconds = 0.5;
    int runs = 5;
    std::vector<std::size_t> windows{1, 16, 64, 256};
    int cpu = 0;
    bool pinned = true, unpinned = true;
    std::size_t in_flight = 100'000;
    std::string server = FAST_ECHO_SERVER;
    bool smoke = false;
    bool verbose = false;
    double sustained = 4, sustained_timeout = 1;
    // single-purpose modes
    std::size_t memory_only = 0;
    bool when_all_mode = false;
    std::uint64_t count = 0;
    bool count_raw = false;
    bool count_run = false;
    std::string floor;  // "await" or "callback": the count mode runs awaitable_floor.hpp
    std::string self;
};

// ---- small utilities ----------------------------------------------------------

long vm_rss_kb() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

// read() and write() calls made by this process so far (/proc/self/io).
struct io_calls {
    std::uint64_t reads = 0, writes = 0;
    static io_calls now() {
        io_calls c;
        std::ifstream f("/proc/self/io");
        std::string key;
        std::uint64_t value = 0;
        while (f >> key >> value) {
            if (key == "syscr:") c.reads = value;
            else if (key == "syscw:") c.writes = value;
        }
        return c;
    }
};

// Bytes the allocator has handed out and not had back (glibc's mallinfo2).
std::size_t heap_in_use() {
    const struct mallinfo2 m = ::mallinfo2();
    return m.uordblks + m.hblkhd;
}

bool set_affinity(const cpu_set_t& set) { return ::sched_setaffinity(0, sizeof set, &set) == 0; }

cpu_set_t one_cpu(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return s;
}

struct stats {
    double median = 0, min = 0, max = 0;
    [[nodiscard]] double spread_pct() const { return median > 0 ? 100.0 * (max - min) / median : 0; }
};

stats summarize(std::vector<double> v) {
    stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    return s;
}

std::string fmt_rate(double r) {
    char b[32];
    if (r >= 1e6) std::snprintf(b, sizeof b, "%.2fM", r / 1e6);
    else std::snprintf(b, sizeof b, "%.1fk", r / 1e3);
    return b;
}

// ---- the library driver ---------------------------------------------------------

struct lib_run_state {
    explicit lib_run_state(asio::any_io_executor ex) : done(ex, clk::time_point::max()), stop_timer(ex) {}
    asio::steady_timer done;        // cancelled when the last worker ends
    asio::steady_timer stop_timer;  // ends the run
    bool stop = false;
    std::size_t running = 0;
    std::uint64_t issued = 0, limit = UINT64_MAX;
    std::uint64_t ok = 0, failed = 0;
    std::string first_failure;
};

struct lib_figures {
    std::uint64_t ok = 0, failed = 0;
    double seconds = 0;
    std::string first_failure;
    [[nodiscard]] double per_second() const { return seconds > 0 ? static_cast<double>(ok) / seconds : 0; }
};

// Coroutine parameters here are references and pointers only: GCC 12 can
// mis-copy by-value class-type coroutine parameters into the frame. The state
// outlives every worker (lib_run waits for the last one).

// One worker: calls back to back until told to stop.
asio::awaitable<void> lib_worker(mlt::session& s, const mlt::arguments& args, const mlt::call_options& opts,
                                 lib_run_state* st) {
    while (!st->stop && st->issued < st->limit) {
        ++st->issued;
        mlt::call_result r = co_await s.call_tool("echo", args, opts);
        if (r.ok()) {
            ++st->ok;
        } else {
            if (st->failed++ == 0) st->first_failure = r.describe_call() + ": " + r.describe();
        }
    }
    if (--st->running == 0) st->done.cancel();
}

// W workers in flight for `duration` (or until `limit` calls were issued).
asio::awaitable<lib_figures> lib_run(mlt::session& s, const mlt::arguments& args, std::size_t window,
                                     std::int64_t duration_ns, std::uint64_t limit = UINT64_MAX) {
    const auto duration = std::chrono::nanoseconds(duration_ns);
    auto ex = co_await asio::this_coro::executor;
    auto st = std::make_shared<lib_run_state>(ex);
    st->limit = limit;
    mlt::call_options opts;
    opts.timeout = 30s;
    const auto t0 = clk::now();
    st->running = window;
    for (std::size_t i = 0; i < window; ++i)
        asio::co_spawn(ex, lib_worker(s, args, opts, st.get()), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    if (limit == UINT64_MAX) {
        st->stop_timer.expires_after(duration);
        st->stop_timer.async_wait([st](const asio::error_code& ec) {
            if (!ec) st->stop = true;
        });
    }
    asio::error_code ec;
    co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    lib_figures f;
    f.seconds = std::chrono::duration<double>(clk::now() - t0).count();
    st->stop_timer.cancel();
    f.ok = st->ok;
    f.failed = st->failed;
    f.first_failure = st->first_failure;
    co_return f;
}

mlt::arguments bench_arguments() {
    // Serialized once; every call reuses the text. (An `arguments` is built
    // once too: passing the raw_json itself would copy its text on each call.)
    const mlt::json a = mlt::args("message", "x");
    return mlt::arguments(mlt::raw_json::from(a));
}

bool on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
        if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    return false;
}

// Pinned: `taskset -c N server`. (A child inherits the driver's affinity
// anyway, so without taskset the server is still pinned.)
std::vector<std::string> server_argv(const config& c, bool pinned) {
    static const bool have_taskset = on_path("taskset");
    if (pinned && have_taskset) return {"taskset", "-c", std::to_string(c.cpu), c.server};
    return {c.server};
}

mlt::stdio_server library_server(const config& c, bool pinned) {
    const auto argv = server_argv(c, pinned);
    mlt::stdio_server s;
    s.command = argv[0];
    s.args.assign(argv.begin() + 1, argv.end());
    return s;
}

// ---- throughput -----------------------------------------------------------------

struct row {
    std::size_t window = 0;
    stats raw, lib, run;
    double ratio = 0, run_ratio = 0;
};

// mlt::run() as a user would call it: a closed load of `users` on one session
// (no think time), one tool, no trace, no sampling, no run directory.
// `iterations` > 0 stops after that many (the count mode). Returns calls/s of
// the load phase as the report measures it (connect and close excluded).
asio::awaitable<double> run_path(const mlt::stdio_server& server, std::size_t users, clk::duration duration,
                                 std::uint64_t iterations, std::uint64_t& failed) {
    mlt::closed_load load;
    load.users = users;
    load.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(duration);
    load.max_iterations = iterations;
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::run_options options;
    options.sample_interval = std::chrono::milliseconds(0);
    options.run_directory.enabled = false;
    options.progress = mlt::progress_mode::off;
    options.list_before_run = false;
    const mlt::thresholds none{};
    const mlt::workload w = load;
    const mlt::load_report report = co_await mlt::run(server, w, calls, none, options);
    failed = report.overall.calls() - report.overall.outcomes[mlt::outcome::ok];
    co_return report.throughput_rps;
}

int failures_total = 0;

asio::awaitable<std::vector<row>> throughput(const config& c, bool pinned) {
    const mlt::arguments args = bench_arguments();
    const auto run_len = std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(c.seconds));
    const auto warm_len = run_len / 5;
    const auto ns = [](clk::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); };

    bench::raw_driver raw(server_argv(c, pinned));
    raw.handshake();
    mlt::stdio_server server = library_server(c, pinned);
    mlt::session s = co_await mlt::connect(server);

    std::vector<row> rows;
    for (std::size_t w : c.windows) {
        (void)raw.run(w, warm_len);
        (void)co_await lib_run(s, args, w, ns(warm_len));
        std::vector<double> raw_rates, lib_rates, run_rates;
        std::uint64_t raw_requests = 0, lib_requests = 0;
        io_calls raw_io, lib_io;
        for (int r = 0; r < c.runs; ++r) {
            // Interleaved, so that drift on a shared machine hits both alike.
            const io_calls io0 = io_calls::now();
            const bench::raw_figures rf = raw.run(w, run_len);
            const io_calls io1 = io_calls::now();
            const lib_figures lf = co_await lib_run(s, args, w, ns(run_len));
            const io_calls io2 = io_calls::now();
            // (reading /proc/self/io is itself one read() per call: subtracted)
            raw_io.reads += io1.reads - io0.reads - 1;
            raw_io.writes += io1.writes - io0.writes;
            lib_io.reads += io2.reads - io1.reads - 1;
            lib_io.writes += io2.writes - io1.writes;
            raw_requests += rf.ok + rf.errors;
            lib_requests += lf.ok + lf.failed;
            if (rf.errors || rf.mismatched) {
                std::printf("  raw driver: %llu errors, %llu mismatched ids at W=%zu\n",
                            static_cast<unsigned long long>(rf.errors),
                            static_cast<unsigned long long>(rf.mismatched), w);
                ++failures_total;
            }
            if (lf.failed) {
                std::printf("  library: %llu failed calls at W=%zu, first: %s\n",
                            static_cast<unsigned long long>(lf.failed), w, lf.first_failure.c_str());
                ++failures_total;
            }
            std::uint64_t run_failed = 0;
            const double run_rate = co_await run_path(server, w, run_len, 0, run_failed);
            if (run_failed) {
                std::printf("  run(): %llu failed calls at W=%zu\n", static_cast<unsigned long long>(run_failed), w);
                ++failures_total;
            }
            raw_rates.push_back(rf.per_second());
            lib_rates.push_back(lf.per_second());
            run_rates.push_back(run_rate);
            if (c.verbose)
                std::printf("        run %d: raw %s/s, loop %s/s, run() %s/s\n", r + 1,
                            fmt_rate(rf.per_second()).c_str(), fmt_rate(lf.per_second()).c_str(),
                            fmt_rate(run_rate).c_str());
        }
        row rw;
        rw.window = w;
        rw.raw = summarize(raw_rates);
        rw.lib = summarize(lib_rates);
        rw.run = summarize(run_rates);
        rw.ratio = rw.raw.median > 0 ? rw.lib.median / rw.raw.median : 0;
        rw.run_ratio = rw.raw.median > 0 ? rw.run.median / rw.raw.median : 0;
        const auto per = [](std::uint64_t n, std::uint64_t d) { return d ? static_cast<double>(n) / static_cast<double>(d) : 0.0; };
        std::printf("  %4zu  %9s (%4.1f%%)  %9s (%4.1f%%) %5.2fx  %9s (%4.1f%%) %5.2fx  %-8s  %5.1f / %5.1f   %5.1f / %5.1f\n", w,
                    fmt_rate(rw.raw.median).c_str(), rw.raw.spread_pct(), fmt_rate(rw.lib.median).c_str(),
                    rw.lib.spread_pct(), rw.ratio, fmt_rate(rw.run.median).c_str(), rw.run.spread_pct(), rw.run_ratio,
                    w == 1 ? ">= 0.70x" : (w >= 16 ? ">= 0.80x" : "-"),
                    per(raw_requests, raw_io.writes), per(lib_requests, lib_io.writes),
                    per(raw_requests, raw_io.reads), per(lib_requests, lib_io.reads));
        std::fflush(stdout);
        rows.push_back(rw);
    }
    const auto st = s.stats();
    if (st.protocol_violations) {
        std::printf("  library session recorded %llu protocol violations\n",
                    static_cast<unsigned long long>(st.protocol_violations));
        ++failures_total;
    }
    co_await s.close();
    co_return rows;
}

// ---- memory per in-flight call ---------------------------------------------------

asio::awaitable<void> one_call(mlt::session& s, const mlt::arguments& args, const mlt::call_options& opts,
                               lib_run_state* st) {
    mlt::call_result r = co_await s.call_tool("echo", args, opts);
    if (r.ok()) ++st->ok;
    else if (st->failed++ == 0) st->first_failure = r.describe_call() + ": " + r.describe();
    if (--st->running == 0) st->done.cancel();
}

asio::awaitable<int> memory_test(const config& c, std::size_t n, bool use_when_all) {
    auto ex = co_await asio::this_coro::executor;
    mlt::stdio_server server;
    server.command = c.server;
    server.args = {"--hold", std::to_string(n)};
    mlt::session s = co_await mlt::connect(server);
    const mlt::arguments args = bench_arguments();
    mlt::call_options opts;
    opts.timeout = 120s;
    const auto base_sent = s.stats().requests_sent;
    const auto base_replies = s.stats().replies_received;

    const long rss0 = vm_rss_kb();
    const std::size_t heap0 = heap_in_use();
    std::size_t heap1 = 0;
    const auto t0 = clk::now();
    auto st = std::make_shared<lib_run_state>(ex);
    std::vector<mlt::call_result> results;
    std::size_t ok = 0, failed = 0;
    std::string first_failure;
    long rss1 = 0;
    std::uint64_t replies_at_measure = 0, pending_at_measure = 0;

    const auto measure_when_in_flight = [&]() -> asio::awaitable<void> {
        // Every call has been handed to the session once requests_sent counts
        // them all; the server holds every reply until it has read all n, so
        // none can have arrived yet.
        while (s.stats().requests_sent < base_sent + n) co_await asio::post(ex, asio::use_awaitable);
        rss1 = vm_rss_kb();
        heap1 = heap_in_use();
        replies_at_measure = s.stats().replies_received - base_replies;
        pending_at_measure = s.stats().requests_sent - base_sent;
    };

    if (use_when_all) {
        std::vector<asio::awaitable<mlt::call_result>> calls;
        calls.reserve(n);
        for (std::size_t i = 0; i < n; ++i) calls.push_back(s.call_tool("echo", args, opts));
        std::vector<asio::awaitable<void>> both;
        auto collect = [&]() -> asio::awaitable<void> { results = co_await mlt::when_all(std::move(calls)); };
        both.push_back(collect());
        both.push_back(measure_when_in_flight());
        co_await mlt::when_all(std::move(both));
        for (const auto& r : results) {
            if (r.ok()) ++ok;
            else if (failed++ == 0) first_failure = r.describe_call() + ": " + r.describe();
        }
    } else {
        st->running = n;
        for (std::size_t i = 0; i < n; ++i)
            asio::co_spawn(ex, one_call(s, args, opts, st.get()), [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        co_await measure_when_in_flight();
        asio::error_code ec;
        if (st->running > 0) co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        ok = st->ok;
        failed = st->failed;
        first_failure = st->first_failure;
    }
    const double took = std::chrono::duration<double>(clk::now() - t0).count();
    const long rss2 = vm_rss_kb();
    const double per_call = static_cast<double>(rss1 - rss0) * 1024.0 / static_cast<double>(n);
    std::printf("memory: %zu calls in flight on one session (%s)\n", n,
                use_when_all ? "mlt::when_all over call_tool awaitables" : "one co_spawned coroutine per call");
    std::printf("  VmRSS before %ld KiB, all in flight %ld KiB (%llu sent, %llu replies so far), after %ld KiB\n",
                rss0, rss1, static_cast<unsigned long long>(pending_at_measure),
                static_cast<unsigned long long>(replies_at_measure), rss2);
    std::printf("  bytes per in-flight call: %.0f of RSS   (target <= 4096); %.0f of heap in use (mallinfo2)\n",
                per_call, (static_cast<double>(heap1) - static_cast<double>(heap0)) / static_cast<double>(n));
    std::printf("  completed in %.2f s: %zu ok, %zu failed%s%s\n", took, ok, failed,
                failed ? "; first: " : "", first_failure.c_str());
    if (replies_at_measure != 0)
        std::printf("  note: %llu replies arrived before the measurement; the figure is low\n",
                    static_cast<unsigned long long>(replies_at_measure));
    co_await s.close();
    co_return (failed == 0 && ok == n) ? 0 : 1;
}

// Runs the memory test in a fresh process so that its RSS baseline is clean.
int memory_test_in_child(const config& c, bool use_when_all) {
    std::vector<std::string> a{c.self, "--memory-only", std::to_string(c.in_flight), "--server", c.server};
    if (use_when_all) a.push_back("--when-all");
    std::vector<char*> argv;
    for (auto& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    pid_t pid = -1;
    if (::posix_spawn(&pid, c.self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return 1;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// ---- fixed work, for callgrind ----------------------------------------------------

// ---- sustained load past the per-call timeout ---------------------------------------

// 64 calls in flight for `seconds`, with a per-call timeout shorter than the
// run, in a fresh session: requests/s and VmRSS second by second. A session
// whose cost per call grows with the calls it has issued (rather than with
// the calls in flight) shows here as rising RSS or falling throughput once the
// first timeout period has passed.
asio::awaitable<int> sustained(const config& c) {
    auto ex = co_await asio::this_coro::executor;
    const mlt::arguments args = bench_arguments();
    mlt::stdio_server server = library_server(c, false);
    mlt::session s = co_await mlt::connect(server);
    auto st = std::make_shared<lib_run_state>(ex);
    mlt::call_options opts;
    opts.timeout = std::chrono::milliseconds(static_cast<long>(c.sustained_timeout * 1000));
    const std::size_t window = 64;
    st->running = window;
    for (std::size_t i = 0; i < window; ++i)
        asio::co_spawn(ex, lib_worker(s, args, opts, st.get()), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    std::printf("sustained: 64 in flight for %.0f s, per-call timeout %.1f s, unpinned, fresh session\n",
                c.sustained, c.sustained_timeout);
    asio::steady_timer tick(ex);
    std::uint64_t last = 0;
    const auto t0 = clk::now();
    for (int sec = 1; sec <= static_cast<int>(c.sustained); ++sec) {
        tick.expires_at(t0 + std::chrono::seconds(sec));
        co_await tick.async_wait(asio::use_awaitable);
        std::printf("  %2d s: %9s req/s   VmRSS %7.1f MiB\n", sec,
                    fmt_rate(static_cast<double>(st->ok - last)).c_str(), static_cast<double>(vm_rss_kb()) / 1024.0);
        std::fflush(stdout);
        last = st->ok;
    }
    st->stop = true;
    asio::error_code ec;
    co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (st->failed)
        std::printf("  %llu calls failed, first: %s\n", static_cast<unsigned long long>(st->failed),
                    st->first_failure.c_str());
    co_await s.close();
    co_return st->failed ? 1 : 0;
}

asio::awaitable<int> count_mode(const config& c) {
    const std::size_t window = 64;
    if (c.count_raw) {
        bench::raw_driver raw(server_argv(c, false));
        raw.handshake();
        const auto f = raw.run(window, std::chrono::hours(1), c.count);
        std::printf("raw driver: %llu ok, %llu errors in %.2f s\n", static_cast<unsigned long long>(f.ok),
                    static_cast<unsigned long long>(f.errors), f.seconds);
        co_return f.ok == c.count ? 0 : 1;
    }
    if (c.count_run) {
        std::uint64_t failed = 0;
        (void)co_await run_path(library_server(c, false), window, std::chrono::hours(1), c.count, failed);
        std::printf("run(): %llu iterations, %llu failed\n", static_cast<unsigned long long>(c.count),
                    static_cast<unsigned long long>(failed));
        co_return failed == 0 ? 0 : 1;
    }
    const mlt::arguments args = bench_arguments();
    mlt::stdio_server server = library_server(c, false);
    mlt::session s = co_await mlt::connect(server);
    const lib_figures f = co_await lib_run(s, args, window, std::int64_t{3600} * 1'000'000'000, c.count);
    std::printf("library: %llu ok, %llu failed in %.2f s\n", static_cast<unsigned long long>(f.ok),
                static_cast<unsigned long long>(f.failed), f.seconds);
    co_await s.close();
    co_return f.ok == c.count ? 0 : 1;
}

// ---- main ---------------------------------------------------------------------------

asio::awaitable<int> run_all(const config& c) {
    if (c.count > 0) co_return co_await count_mode(c);
    if (c.memory_only > 0) co_return co_await memory_test(c, c.memory_only, c.when_all_mode);

    cpu_set_t all;
    CPU_ZERO(&all);
    ::sched_getaffinity(0, sizeof all, &all);
    std::printf("bench_throughput: mcp-loadtest %s vs a raw driver, fast_echo_server, %ld online CPUs\n",
                MCP_LOADTEST_VERSION_STRING, ::sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("requests/s, median of %d runs of %.2f s each (spread = (max-min)/median); "
                "tools/call echo {\"message\":\"x\"}\n",
                c.runs, c.seconds);

    std::vector<std::pair<bool, std::vector<row>>> results;
    for (bool pinned : {true, false}) {
        if (pinned && !c.pinned) continue;
        if (!pinned && !c.unpinned) continue;
        if (pinned) {
            if (!set_affinity(one_cpu(c.cpu))) {
                std::printf("cannot pin to CPU %d: %s\n", c.cpu, std::strerror(errno));
                continue;
            }
            if (on_path("taskset"))
                std::printf("\npinned: driver and server on CPU %d (sched_setaffinity; server via taskset -c %d)\n",
                            c.cpu, c.cpu);
            else
                std::printf("\npinned: driver and server on CPU %d (sched_setaffinity; no taskset on PATH: the "
                            "server inherits the driver's affinity)\n", c.cpu);
        } else {
            set_affinity(all);
            std::printf("\nunpinned: driver and server free on all CPUs\n");
        }
        std::printf("     W    raw req/s (spread)  loop req/s (spread)  /raw   run() req/s (spread) /raw  target    "
                    "req/write()     req/read()\n"
                    "                                                                                            "
                    "raw / loop      raw / loop\n");
        results.emplace_back(pinned, co_await throughput(c, pinned));
    }
    set_affinity(all);

    std::printf("\nlibrary/raw against the targets (printed, not asserted):\n");
    for (const auto& [pinned, rows] : results) {
        std::printf("  %-9s", pinned ? "pinned" : "unpinned");
        for (const auto& r : rows) {
            const double target = r.window == 1 ? 0.7 : (r.window >= 16 ? 0.8 : 0.0);
            std::printf("  W=%zu loop %.2fx%s, run() %.2fx%s", r.window, r.ratio,
                        target == 0.0 ? "" : (r.ratio >= target ? " (met)" : " (missed)"), r.run_ratio,
                        target == 0.0 ? "" : (r.run_ratio >= target ? " (met)" : " (missed)"));
        }
        std::printf("\n");
    }

    int status = failures_total ? 1 : 0;
    if (c.sustained > 0) {
        std::printf("\n");
        if (co_await sustained(c) != 0) status = 1;
    }
    if (c.in_flight > 0) {
        std::printf("\n");
        if (memory_test_in_child(c, false) != 0) status = 1;
        if (!c.smoke && memory_test_in_child(c, true) != 0) status = 1;
    }
    co_return status;
}

std::vector<std::size_t> parse_list(const char* s) {
    std::vector<std::size_t> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) v.push_back(std::strtoull(item.c_str(), nullptr, 10));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    config c;
    c.self = "/proc/self/exe";
    {
        char buf[4096];
        const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n > 0) c.self.assign(buf, static_cast<std::size_t>(n));
    }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--seconds") c.seconds = std::strtod(next(), nullptr);
        else if (a == "--runs") c.runs = std::atoi(next());
        else if (a == "--windows") c.windows = parse_list(next());
        else if (a == "--cpu") c.cpu = std::atoi(next());
        else if (a == "--pinned-only") c.unpinned = false;
        else if (a == "--unpinned-only") c.pinned = false;
        else if (a == "--in-flight") c.in_flight = std::strtoull(next(), nullptr, 10);
        else if (a == "--server") c.server = next();
        else if (a == "--memory-only") c.memory_only = std::strtoull(next(), nullptr, 10);
        else if (a == "--when-all") c.when_all_mode = true;
        else if (a == "--count") c.count = std::strtoull(next(), nullptr, 10);
        else if (a == "--raw") c.count_raw = true;
        else if (a == "--run") c.count_run = true;
        else if (a == "--floor") c.floor = next();
        else if (a == "--verbose") c.verbose = true;
        else if (a == "--sustained") c.sustained = std::strtod(next(), nullptr);
        else if (a == "--sustained-timeout") c.sustained_timeout = std::strtod(next(), nullptr);
        else if (a == "--smoke") {
            c.smoke = true;
            c.seconds = 0.05;
            c.runs = 2;
            c.in_flight = 2000;
            c.sustained = 0;
        } else {
            std::fprintf(stderr, "unknown argument %s (see the comment at the top of bench_throughput.cpp)\n",
                         a.c_str());
            return 2;
        }
    }
    if (!c.floor.empty()) {
        if ((c.floor != "await" && c.floor != "callback") || c.count == 0) {
            std::fprintf(stderr, "--floor takes await or callback, with --count N\n");
            return 2;
        }
        asio::io_context io(1);
        const std::uint64_t ok = bench::awaitable_floor(io, c.count).run(64, c.floor == "await");
        std::printf("floor (%s): %llu of %llu calls ok\n", c.floor.c_str(), static_cast<unsigned long long>(ok),
                    static_cast<unsigned long long>(c.count));
        return ok == c.count ? 0 : 1;
    }
    asio::io_context ctx(1);
    int status = 1;
    asio::co_spawn(ctx, run_all(c), [&](std::exception_ptr e, int s) {
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                std::fprintf(stderr, "bench_throughput: %s\n", ex.what());
            }
            status = 1;
        } else {
            status = s;
        }
    });
    ctx.run();
    std::fflush(stdout);
    return status;
}
