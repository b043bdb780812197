// The per-call trace writer alone (include/mcp_loadtest/detail/engine/trace_writer.hpp),
// against the previous writer (each line formatted with snprintf on the hot
// path, kept below as the baseline), both writing the same events to a file.
//
// Prints, in events per second (millions):
//   - the hot path: what write_call costs the run's thread (a binary record
//     appended), timed in bursts of 2 blocks while the formatter keeps up (the
//     bench waits, untimed, for it to drain between bursts);
//   - end to end: N events written back to back, then close() (formatting and
//     the file write included, the formatter thread running alongside), and the
//     process CPU time per event (both threads; the system part is mostly the
//     kernel copying the text into the page cache, paid by any writer);
//   - the same to /dev/null (formatting without the file system's cost);
//   - the snprintf writer end to end (the baseline; everything on one thread).
// Then checks that both writers produce the same bytes for a mix of calls
// (ok, failed with long and escaped messages, steps, JSON-RPC error codes,
// timestamps on and beside the rounding ties, negative and huge values,
// process samples), and that a write error (/dev/full) neither throws nor
// hangs and is reported by failed(). Exits 1 if a check fails; asserts no
// timing.
//
//     bench_trace_writer [events, default 5000000] [runs, default 3]
#include <mcp_loadtest/detail/engine/trace_writer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using std::chrono::nanoseconds;

namespace {

// The writer as of issue 14's start, verbatim but for its name: the baseline
// of the figures and the reference of the output check.
class snprintf_trace_writer {
public:
    explicit snprintf_trace_writer(const std::filesystem::path& path) {
        out_.open(path, std::ios::out | std::ios::trunc);
        buffer_.reserve(block);
    }
    void write_call(std::chrono::nanoseconds at, std::size_t session, std::uint64_t iteration,
                    const mlt::call_result& r, std::string_view step, std::chrono::nanoseconds latency) {
        using namespace mlt::detail;
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      R"({"ts":%.6f,"kind":"call","session":%zu,"iteration":%llu,"request_id":%llu,"method":)",
                      std::chrono::duration<double>(at).count(), session, static_cast<unsigned long long>(iteration),
                      static_cast<unsigned long long>(r.request_id));
        buffer_ += buf;
        append_json_string(buffer_, r.method);
        buffer_ += R"(,"tool":)";
        append_json_string(buffer_, r.tool);
        if (!step.empty()) {
            buffer_ += R"(,"step":)";
            append_json_string(buffer_, step);
        }
        std::snprintf(buf, sizeof buf, R"(,"outcome":"%s","duration_ms":%.3f,"latency_ms":%.3f)",
                      std::string(to_string(r.outcome)).c_str(), ms(r.duration), ms(latency));
        buffer_ += buf;
        if (r.error_code) buffer_ += R"(,"error_code":)" + std::to_string(r.error_code);
        if (!r.ok() && !r.message.empty()) {
            buffer_ += R"(,"message":)";
            append_json_string(buffer_, std::string_view(r.message).substr(0, 300));
        }
        buffer_ += "}\n";
        if (buffer_.size() >= block) flush();
    }
    void write_sample(std::size_t session, const mlt::process_sample& s) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      R"({"ts":%.6f,"kind":"process_sample","session":%zu,"pid":%d,"rss_mb":%.3f,"cpu_pct":%.1f,"open_fds":%u,"threads":%u})"
                      "\n",
                      std::chrono::duration<double>(s.at).count(), session, static_cast<int>(s.pid), s.rss_mb,
                      s.cpu_pct, s.open_fds, s.threads);
        buffer_ += buf;
        if (buffer_.size() >= block) flush();
    }
    void close() {
        flush();
        out_.flush();
    }

private:
    static constexpr std::size_t block = 1 << 16;
    void flush() {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }
    std::ofstream out_;
    std::string buffer_;
};

struct event {
    nanoseconds at, latency;
    std::size_t session;
    std::uint64_t iteration;
    std::string step;
    mlt::call_result r;
};

// What a run traces: mostly ok echo calls of ~10 µs at ~300k calls/s, a few
// tools and steps, 1 % failures with a message.
std::vector<event> typical_events(std::size_t n) {
    std::mt19937_64 rng(42);
    const char* tools[] = {"echo", "add", "longRunningOperation", "get-resource"};
    std::vector<event> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto& e = v[i];
        e.at = nanoseconds(3'333 * static_cast<std::int64_t>(i) + static_cast<std::int64_t>(rng() % 1000));
        e.session = rng() % 4;
        e.iteration = i / 2;
        e.step = (i % 8 == 0) ? "second" : "";
        e.r.request_id = i + 1;
        e.r.method = "tools/call";
        e.r.tool = tools[rng() % 4];
        e.r.duration = nanoseconds(8'000 + static_cast<std::int64_t>(rng() % 20'000));
        e.latency = e.r.duration + nanoseconds(rng() % 500);
        e.r.outcome = mlt::outcome::ok;
        if (rng() % 100 == 0) {
            e.r.outcome = mlt::outcome::tool_error;
            e.r.message = "the tool reported an error: isError true, content: \"boom\"";
        }
    }
    return v;
}

// Everything the format has to get right.
std::vector<event> tricky_events() {
    std::vector<event> v;
    std::mt19937_64 rng(7);
    const std::int64_t specials[] = {0,           1,          499,          500,           501,
                                     999,         1'000,      1'500,        2'500,         999'999'500,
                                     999'999'499, 999'999'501, 1'000'000'500, 123'456'789'500, -1,
                                     -500,        -1'500,     (std::int64_t{1} << 50) - 1, std::int64_t{1} << 50,
                                     (std::int64_t{1} << 53) + 12'345, INT64_MAX, INT64_MIN};
    const mlt::outcome outcomes[] = {mlt::outcome::ok,         mlt::outcome::tool_error, mlt::outcome::server_error,
                                     mlt::outcome::protocol_error, mlt::outcome::timeout,  mlt::outcome::hang,
                                     mlt::outcome::crash,       mlt::outcome::cancelled};
    for (std::size_t i = 0; i < 4000; ++i) {
        event e;
        const auto pick = [&] {
            return i < 2 * std::size(specials) ? specials[(i + rng() % 3) % std::size(specials)]
                                               : static_cast<std::int64_t>(rng() % 4'000'000'000'000ull);
        };
        e.at = nanoseconds(pick());
        e.latency = nanoseconds(i % 3 ? pick() : static_cast<std::int64_t>(rng() % 100) * 1000 + 500);
        e.session = rng() % 1000;
        e.iteration = rng();
        e.step = i % 5 == 0 ? "step \"two\"\n\x01" : i % 7 == 0 ? "ünïcode" : "";
        e.r.request_id = rng();
        e.r.method = i % 11 == 0 ? "resources/read" : "tools/call";
        e.r.tool = i % 13 == 0 ? "" : i % 3 == 0 ? "tab\tquote\"back\\slash" : "echo";
        e.r.duration = nanoseconds(pick());
        e.r.outcome = outcomes[rng() % std::size(outcomes)];
        e.r.error_code = i % 4 == 0 ? -32000 - static_cast<std::int64_t>(rng() % 700) : 0;
        if (i % 2 == 0) {
            e.r.message = std::string(rng() % 400, 'm');
            for (auto& c : e.r.message)
                if (rng() % 10 == 0) c = "\"\\\n\x1f\xc3\xa9"[rng() % 6];
        }
        v.push_back(std::move(e));
    }
    return v;
}

std::vector<mlt::process_sample> samples() {
    std::vector<mlt::process_sample> v;
    for (int i = 0; i < 50; ++i) {
        mlt::process_sample s;
        s.at = nanoseconds(100'000'000LL * i + 500);
        s.pid = 1000 + i;
        s.rss_mb = 12.3456 * i;
        s.cpu_pct = 99.95 - i;
        s.open_fds = 10u + static_cast<unsigned>(i);
        s.threads = 3u;
        v.push_back(s);
    }
    return v;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct cpu_time {
    double user = 0, system = 0;
};

cpu_time cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return {static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) / 1e6,
            static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) / 1e6};
}

template <typename Writer>
void write_all(Writer& w, const std::vector<event>& events, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const auto& e = events[i % events.size()];
        w.write_call(e.at, e.session, e.iteration, e.r, e.step, e.latency);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const auto dir = std::filesystem::temp_directory_path();
    const auto pid = std::to_string(::getpid());
    const auto path_new = dir / ("mlt-bench-trace-new-" + pid + ".jsonl");
    const auto path_old = dir / ("mlt-bench-trace-old-" + pid + ".jsonl");
    bool ok = true;

    // 1. Same bytes as the snprintf writer.
    {
        const auto tricky = tricky_events();
        const auto typical = typical_events(20'000);
        {
            mlt::detail::trace_writer w(path_new);
            snprintf_trace_writer o(path_old);
            for (const auto* set : {&tricky, &typical}) {
                write_all(w, *set, set->size());
                write_all(o, *set, set->size());
            }
            for (const auto& s : samples()) {
                w.write_sample(s.pid % 3, s);
                o.write_sample(s.pid % 3, s);
            }
            w.close();
            o.close();
        }
        const auto a = slurp(path_new), b = slurp(path_old);
        const bool same = a == b && !a.empty();
        std::printf("output: %s (%zu lines, %zu bytes)\n", same ? "identical to the snprintf writer's" : "DIFFERS",
                    static_cast<std::size_t>(std::count(a.begin(), a.end(), '\n')), a.size());
        if (!same) {
            const auto at = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
            const auto from = static_cast<std::size_t>(at.first - a.begin());
            const auto line = a.rfind('\n', from);
            const auto begin = line == std::string::npos ? 0 : line + 1;
            std::printf("  new: %s\n  old: %s\n", a.substr(begin, a.find('\n', from) - begin).c_str(),
                        b.substr(begin, b.find('\n', from) - begin).c_str());
            ok = false;
        }
    }

    // 2. A write error: no throw, no hang, failed() says so.
    if (std::filesystem::exists("/dev/full")) {
        bool reported = false;
        const auto t = std::chrono::steady_clock::now();
        try {
            mlt::detail::trace_writer w("/dev/full");
            write_all(w, typical_events(1000), 200'000);
            w.close();
            reported = w.failed();
        } catch (const std::exception& e) {
            std::printf("write error: threw %s\n", e.what());
            ok = false;
        }
        std::printf("write error (/dev/full): %s, %.2f s\n", reported ? "reported by failed()" : "NOT REPORTED",
                    seconds_since(t));
        ok = ok && reported;
    }

    // 3. Throughput.
    const auto events = typical_events(1 << 16);
    std::vector<double> hot, end_to_end, user_per_event, system_per_event, old_rate, bytes, null_rate;
    for (int run = 0; run < runs; ++run) {
        {  // the hot path alone: bursts of 2 blocks, the drain untimed
            mlt::detail::trace_writer w(path_new);
            const std::size_t burst = 2 * mlt::detail::trace_writer::block_records;
            double timed = 0;
            std::size_t written = 0;
            while (written < n) {
                const auto t = std::chrono::steady_clock::now();
                for (std::size_t i = 0; i < burst; ++i, ++written) {
                    const auto& e = events[written % events.size()];
                    w.write_call(e.at, e.session, e.iteration, e.r, e.step, e.latency);
                }
                timed += seconds_since(t);
                w.wait_idle();
            }
            w.close();
            hot.push_back(static_cast<double>(written) / timed);
        }
        {  // end to end
            const cpu_time cpu0 = cpu_seconds();
            const auto t = std::chrono::steady_clock::now();
            mlt::detail::trace_writer w(path_new);
            write_all(w, events, n);
            w.close();
            const double s = seconds_since(t);
            end_to_end.push_back(static_cast<double>(n) / s);
            const cpu_time cpu1 = cpu_seconds();
            user_per_event.push_back((cpu1.user - cpu0.user) / static_cast<double>(n) * 1e9);
            system_per_event.push_back((cpu1.system - cpu0.system) / static_cast<double>(n) * 1e9);
            std::error_code ec;
            bytes.push_back(static_cast<double>(std::filesystem::file_size(path_new, ec)) / static_cast<double>(n));
        }
        if (std::filesystem::exists("/dev/null")) {  // end to end without the file system
            const auto t = std::chrono::steady_clock::now();
            mlt::detail::trace_writer w("/dev/null");
            write_all(w, events, n);
            w.close();
            null_rate.push_back(static_cast<double>(n) / seconds_since(t));
        }
        {  // the snprintf writer
            const auto t = std::chrono::steady_clock::now();
            snprintf_trace_writer o(path_old);
            write_all(o, events, n);
            o.close();
            old_rate.push_back(static_cast<double>(n) / seconds_since(t));
        }
    }
    const double h = median(hot), e = median(end_to_end), o = median(old_rate);
    std::printf("%zu events per run, median of %d runs, %.0f bytes per event\n", n, runs, median(bytes));
    std::printf("hot path (write_call, binary record)   %7.2f M events/s  (%.0f ns per event)\n", h / 1e6, 1e9 / h);
    std::printf("end to end (formatted, written, closed) %7.2f M events/s  (CPU per event, both threads: %.0f ns user "
                "+ %.0f ns system)\n",
                e / 1e6, median(user_per_event), median(system_per_event));
    if (!null_rate.empty())
        std::printf("end to end, to /dev/null               %7.2f M events/s\n", median(null_rate) / 1e6);
    std::printf("snprintf writer end to end (baseline)   %7.2f M events/s  (%.0f ns per event)\n", o / 1e6, 1e9 / o);
    std::printf("hot path: %.1fx the baseline; end to end: %.1fx\n", h / o, e / o);

    std::error_code ec;
    std::filesystem::remove(path_new, ec);
    std::filesystem::remove(path_old, ec);
    return ok ? 0 : 1;
}
