// How closely replay() keeps a recording's pace, and what replaying costs, measured in one run.
//
// Records a session against bench/fast_echo_server: `n` calls, each after a pause drawn from
// 0..2 ms (seeded), with up to 4 in flight. Then replays it three ways: at the recorded pace, at
// 4x, and as fast as the recorded order allows. Prints each replay's send time error (|sent -
// due| for requests not held by an earlier reply: p50, p99, max) and its wall time against the
// recording's span. Asserts no timing.
//
//     bench_replay [calls, default 2000] [runs, default 3]
#include <mcp_loadtest/mcp_loadtest.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#ifndef FAST_ECHO_SERVER
#define FAST_ECHO_SERVER "fast_echo_server"
#endif

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

asio::awaitable<mlt::recording> record(int n) {
    mlt::client_options o;
    o.record = true;
    const mlt::stdio_server server{FAST_ECHO_SERVER};
    auto s = co_await mlt::connect(server, o);
    asio::steady_timer pause(co_await asio::this_coro::executor);
    std::mt19937 random(20261128);
    std::uniform_int_distribution<int> micros(0, 2000);
    for (int i = 0, group = 0; i < n; ++group) {
        std::vector<asio::awaitable<mlt::call_result>> together;
        const int width = 1 + group % 4;  // 1..4 in flight
        for (int k = 0; k < width && i + k < n; ++k)
            together.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i + k))));
        i += width;
        co_await mlt::when_all(std::move(together));
        pause.expires_after(std::chrono::microseconds(micros(random)));
        co_await pause.async_wait(asio::use_awaitable);
    }
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();
    co_return r;
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::max(8, std::atoi(argv[1])) : 2000;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    asio::io_context ctx;
    int status = 0;
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
            const mlt::recording r = co_await record(n);
            const auto& messages = r.sessions.front().messages;
            const double span_s = std::chrono::duration<double>(messages.back().at - messages.front().at).count();
            std::printf("recording: %zu messages, %.3f s from the first to the last\n", messages.size(), span_s);
            struct mode {
                const char* name;
                mlt::replay_pace pace;
                double speed;
            };
            const mode modes[] = {{"recorded pace", mlt::replay_pace::recorded, 1},
                                  {"scaled 4x", mlt::replay_pace::scaled, 4},
                                  {"fastest", mlt::replay_pace::fastest, 1}};
            const mlt::stdio_server server{FAST_ECHO_SERVER};
            for (int run = 0; run < runs; ++run) {
                for (const auto& m : modes) {
                    mlt::replay_options o;
                    o.pace = m.pace;
                    o.speed = m.speed;
                    auto report = co_await mlt::replay(r, server, o);
                    if (!report.passed()) {
                        std::fprintf(stderr, "the replay differs: %s\n", report.verdict_sentence().c_str());
                        status = 1;
                    }
                    std::printf("%-14s %6zu requests in %.3f s (%.2fx the recorded span)", m.name, report.requests,
                                report.duration_s, report.duration_s / span_s);
                    if (report.timing.paced_requests > 0)
                        std::printf(", send time error p50 %.3f ms, p99 %.3f ms, max %.3f ms (%zu paced, %zu held)",
                                    report.timing.p50_error_ms, report.timing.p99_error_ms, report.timing.max_error_ms,
                                    report.timing.paced_requests, report.timing.held_requests);
                    std::printf("\n");
                }
            }
        },
        asio::detached);
    ctx.run();
    return status;
}
