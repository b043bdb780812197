// The library side of the peer comparison (bench/peer_compare.sh): a closed
// load of N users for D seconds of `tools/call echo` against a stdio server
// given on the command line, through mlt::run() (one session, no think time,
// tools/list before the load as run() does by default, process sampling off:
// the peer samples nothing either).
//
// It prints calls/s, errors and the client's CPU time per call: user + system
// time of this process (every thread) from getrusage(RUSAGE_SELF), taken just
// before and just after run(). RUSAGE_SELF never includes a child, so the
// server's CPU is not counted. The run() delta includes spawning the server,
// initialize, tools/list and the close; it excludes only this program's own
// start-up and exit. The CPU of the whole process (start-up included, as a
// peer's CPU is measured from outside) is printed too.
//
//     bench_peer [--users N] [--seconds D] [--message TEXT] [--tool NAME] [--raw] -- command [args...]
//
// --raw runs the same load with no library at all: bench/raw_driver.hpp, a
// hand-written client with blocking pipe I/O that keeps N requests in flight and
// only locates each reply's id (no validation, no timeouts, no coroutines). Its
// CPU per call is the floor any client pays on this machine for the same calls:
// mostly the kernel's cost of the pipe reads and writes and, with one call in
// flight, of sleeping until each reply and being woken. Only tools/call echo.
//
// The last line is for scripts:
//     RESULT client=library|raw users=N seconds=D calls=C errors=E calls_per_s=R cpu_run_s=X cpu_ns_per_call=Y cpu_process_s=Z
// It asserts no timing; it exits non-zero if the run could not start or no call
// succeeded (a correctness check).
#include <mcp_loadtest/run.hpp>

#include "raw_driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace mlt = mcp_loadtest;

namespace {

double cpu_seconds() {  // this process, every thread; never a child
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: bench_peer [--users N] [--seconds D] [--message TEXT] [--tool NAME] [--raw] -- command [args...]\n");
    std::exit(2);
}

// The same closed load through raw_driver.hpp: the floor under any client.
int run_raw(const std::vector<std::string>& command, std::size_t users, double seconds, const std::string& message) {
    if (users > 512) {
        std::fprintf(stderr, "bench_peer --raw: at most 512 users (the raw driver's window)\n");
        return 2;
    }
    bench::raw_figures f;
    double cpu_run = 0;
    try {
        bench::raw_driver raw(command, /*discard_stderr=*/true);
        raw.set_arguments(mlt::args("message", message).dump());
        raw.handshake();
        const double cpu_before = cpu_seconds();
        f = raw.run(users, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
        cpu_run = cpu_seconds() - cpu_before;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_peer --raw: %s\n", e.what());
        return 1;
    }
    const std::uint64_t calls = f.ok + f.errors + f.mismatched;
    const double cpu_ns_per_call = calls ? cpu_run / static_cast<double>(calls) * 1e9 : 0;
    const double cpu_process = cpu_seconds();  // read once: both lines below print the same figure
    std::printf("raw client (bench/raw_driver.hpp, blocking pipes, no library): %zu in flight, %.1f s, echo\n", users,
                seconds);
    std::printf("  %llu calls, %llu errors, %.0f calls/s\n", static_cast<unsigned long long>(calls),
                static_cast<unsigned long long>(f.errors + f.mismatched), f.per_second());
    std::printf("  client CPU (user+sys, this process, no child): %.3f s over the load, %.0f ns per call; %.3f s in all\n",
                cpu_run, cpu_ns_per_call, cpu_process);
    std::printf("RESULT client=raw users=%zu seconds=%g calls=%llu errors=%llu calls_per_s=%.1f cpu_run_s=%.4f "
                "cpu_ns_per_call=%.1f cpu_process_s=%.4f\n",
                users, seconds, static_cast<unsigned long long>(calls),
                static_cast<unsigned long long>(f.errors + f.mismatched), f.per_second(), cpu_run, cpu_ns_per_call,
                cpu_process);
    std::fflush(stdout);
    return f.ok > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t users = 8;
    double seconds = 5;
    // About the length of the phrases mcp-stress generates for echo's `message`.
    std::string message = "role account failed";
    std::string tool = "echo";
    std::vector<std::string> command;
    bool raw = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage();
            return argv[++i];
        };
        if (a == "--users") users = std::strtoul(value().c_str(), nullptr, 10);
        else if (a == "--seconds") seconds = std::strtod(value().c_str(), nullptr);
        else if (a == "--message") message = value();
        else if (a == "--tool") tool = value();
        else if (a == "--raw") raw = true;
        else if (a == "--") {
            for (++i; i < argc; ++i) command.emplace_back(argv[i]);
        } else usage();
    }
    if (command.empty() || users == 0 || !(seconds > 0)) usage();
    if (raw && tool != "echo") {
        std::fprintf(stderr, "bench_peer --raw: the raw driver calls only the echo tool (--tool %s given)\n", tool.c_str());
        return 2;
    }
    if (raw) return run_raw(command, users, seconds, message);

    mlt::stdio_server server;
    server.command = command.front();
    server.args.assign(command.begin() + 1, command.end());
    server.stderr_to = mlt::stderr_mode::discard;  // server-everything logs a banner there

    asio::io_context ctx;
    mlt::load_report report;
    std::string failure;
    double cpu_before = 0, cpu_after = 0;
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
            const mlt::workload load = mlt::closed_load{
                .users = users,
                .duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds))};
            const auto calls = mlt::mix::single(tool, mlt::args("message", message));
            mlt::run_options options;
            options.sample_interval = std::chrono::milliseconds(0);
            const mlt::thresholds none{};
            cpu_before = cpu_seconds();
            report = co_await mlt::run(server, load, calls, none, options);
            cpu_after = cpu_seconds();
        },
        [&](std::exception_ptr e) {
            if (!e) return;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                failure = x.what();
            }
        });
    ctx.run();
    if (!failure.empty()) {
        std::fprintf(stderr, "bench_peer: run() failed: %s\n", failure.c_str());
        return 1;
    }
    const std::uint64_t calls = report.overall.calls();
    const std::uint64_t ok = report.overall.outcomes[mlt::outcome::ok];
    const std::uint64_t errors = calls - ok;
    const double cpu_run = cpu_after - cpu_before;
    const double cpu_ns_per_call = calls ? cpu_run / static_cast<double>(calls) * 1e9 : 0;
    const double cpu_process = cpu_seconds();
    std::printf("library (mlt::run, closed_load): %zu users, %.1f s, %s %s\n", users, seconds, tool.c_str(),
                report.server.c_str());
    std::printf("  %llu calls, %llu errors, %.0f calls/s\n", static_cast<unsigned long long>(calls),
                static_cast<unsigned long long>(errors), report.throughput_rps);
    std::printf("  client CPU (user+sys, this process, no child): %.3f s over run(), %.0f ns per call; %.3f s in all\n",
                cpu_run, cpu_ns_per_call, cpu_process);
    if (ok == 0) std::printf("%s\n", report.summary().c_str());
    std::printf("RESULT client=library users=%zu seconds=%g calls=%llu errors=%llu calls_per_s=%.1f cpu_run_s=%.4f cpu_ns_per_call=%.1f "
                "cpu_process_s=%.4f\n",
                users, seconds, static_cast<unsigned long long>(calls), static_cast<unsigned long long>(errors),
                report.throughput_rps, cpu_run, cpu_ns_per_call, cpu_process);
    std::fflush(stdout);
    return ok > 0 ? 0 : 1;
}
