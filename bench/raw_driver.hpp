// The baseline for the throughput benchmarks: an MCP client with no library.
//
// It is the best a hand-written client could do on the same protocol work:
// posix_spawn the server with two pipes, blocking I/O (one read() per batch of
// replies, one write() per batch of requests), request envelopes written by
// hand around pre-serialized arguments, and every reply correlated by its id
// through a ring of in-flight slots. It keeps a window of W requests in flight:
// W are sent, then one more for each reply received.
//
// Work per request, the same as the library's: write the complete tools/call
// envelope (byte for byte what mcp-loadtest writes), read the reply, locate and
// parse its id, match it to the in-flight request (a mismatch is counted),
// tell a result from an error, and record its latency (at batch granularity:
// one clock read per read() batch, where the library reads the clock twice per
// call). What it does not do, and the library does: validate the whole reply
// as JSON, keep per-call timeouts, keep the reply text for the caller, resume a
// coroutine per reply, notice a crashed server, answer server requests.
//
// Limits (it is a benchmark baseline, not a client): blocking writes of a whole
// window must fit the pipe buffer, so W <= 512; replies are assumed to be one
// line each and to carry an integer id.
#pragma once

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;

namespace bench {

struct raw_figures {
    std::uint64_t ok = 0;          // replies with a result
    std::uint64_t errors = 0;      // replies with an error
    std::uint64_t mismatched = 0;  // replies whose id was not in flight
    double seconds = 0;
    double latency_sum_s = 0;      // sum of per-reply latencies (batch granularity)
    std::uint64_t reads = 0, writes = 0;
    [[nodiscard]] double per_second() const { return seconds > 0 ? static_cast<double>(ok) / seconds : 0; }
};

class raw_driver {
public:
    using clk = std::chrono::steady_clock;

    /// Spawns `argv` (looked up on PATH) with its stdin and stdout on pipes;
    /// stderr is inherited, or discarded when `discard_stderr`.
    explicit raw_driver(const std::vector<std::string>& argv, bool discard_stderr = false) : buf_(1 << 20) {
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
            throw std::runtime_error("raw_driver: pipe2 failed");
        posix_spawn_file_actions_t fa;
        ::posix_spawn_file_actions_init(&fa);
        ::posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
        ::posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        if (discard_stderr) ::posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        std::vector<std::string> args = argv;
        std::vector<char*> cargs;
        for (auto& a : args) cargs.push_back(a.data());
        cargs.push_back(nullptr);
        const int err = ::posix_spawnp(&pid_, cargs[0], &fa, nullptr, cargs.data(), environ);
        ::posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        to_server_ = in[1];
        from_server_ = out[0];
        if (err != 0) {
            pid_ = -1;
            throw std::runtime_error("raw_driver: cannot spawn " + argv[0] + ": " + std::strerror(err));
        }
    }

    raw_driver(const raw_driver&) = delete;
    raw_driver& operator=(const raw_driver&) = delete;

    ~raw_driver() {
        if (to_server_ >= 0) ::close(to_server_);  // EOF: the server exits
        if (from_server_ >= 0) ::close(from_server_);
        if (pid_ > 0) {
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

    /// The `arguments` object of every tools/call echo request, as JSON text
    /// (default {"message":"x"}).
    void set_arguments(std::string json) { arguments_ = std::move(json); }

    /// initialize + notifications/initialized. Throws if the server does not answer.
    void handshake() {
        out_.clear();
        out_ += R"({"jsonrpc":"2.0","id":)";
        append_uint(out_, next_id_++);
        out_ += R"(,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
                R"("clientInfo":{"name":"raw_driver","version":"0"}}})"
                "\n";
        write_all(out_);
        out_.clear();
        for (;;) {
            const std::string_view line = next_line();
            if (line.empty()) throw std::runtime_error("raw_driver: the server closed stdout during initialize");
            if (line.find("\"result\"") != std::string_view::npos) break;
            if (line.find("\"error\"") != std::string_view::npos)
                throw std::runtime_error("raw_driver: initialize failed: " + std::string(line));
        }
        write_all(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                  "\n");
    }

    /// Keeps `window` tools/call requests in flight until `duration` has passed
    /// or `max_requests` were sent, then drains the window.
    raw_figures run(std::size_t window, clk::duration duration, std::uint64_t max_requests = UINT64_MAX) {
        if (window == 0 || window > 512) throw std::invalid_argument("raw_driver: window must be 1..512");
        std::size_t cap = 1;
        while (cap < 4 * window) cap <<= 1;
        ring_.assign(cap, slot{});
        mask_ = cap - 1;

        raw_figures f;
        const auto t0 = clk::now();
        const auto stop_at = t0 + duration;
        auto batch_time = t0;
        std::uint64_t sent = 0;
        std::size_t in_flight = 0;
        bool stopping = false;
        out_.clear();
        for (; in_flight < window && sent < max_requests; ++in_flight, ++sent) append_request(batch_time);
        write_all(out_);
        ++f.writes;
        out_.clear();

        while (in_flight > 0) {
            if (end_ == buf_.size()) compact_or_grow();
            const ssize_t n = ::read(from_server_, buf_.data() + end_, buf_.size() - end_);
            if (n < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("raw_driver: read failed: ") + std::strerror(errno));
            }
            if (n == 0) throw std::runtime_error("raw_driver: the server closed stdout");
            ++f.reads;
            end_ += static_cast<std::size_t>(n);
            batch_time = clk::now();
            if (!stopping && (batch_time >= stop_at || sent >= max_requests)) stopping = true;
            for (;;) {
                auto* nl = static_cast<char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_));
                if (!nl) break;
                const std::size_t line_end = static_cast<std::size_t>(nl - buf_.data());
                const std::string_view line(buf_.data() + begin_, line_end - begin_);
                begin_ = line_end + 1;
                if (!on_reply(line, batch_time, f)) continue;  // not one of ours
                --in_flight;
                if (!stopping && sent < max_requests) {
                    append_request(batch_time);
                    ++in_flight;
                    ++sent;
                }
            }
            if (begin_ == end_) begin_ = end_ = 0;
            if (!out_.empty()) {
                write_all(out_);
                ++f.writes;
                out_.clear();
            }
        }
        f.seconds = std::chrono::duration<double>(clk::now() - t0).count();
        return f;
    }

private:
    struct slot {
        std::uint64_t id = 0;
        clk::time_point sent_at{};
    };

    static void append_uint(std::string& s, std::uint64_t v) {
        char b[24];
        auto [p, ec] = std::to_chars(b, b + sizeof b, v);
        s.append(b, static_cast<std::size_t>(p - b));
    }

    void append_request(clk::time_point now) {
        const std::uint64_t id = next_id_++;
        // Byte for byte the envelope mcp-loadtest writes for call_tool("echo", {"message":"x"}).
        out_ += R"({"jsonrpc":"2.0","id":)";
        append_uint(out_, id);
        out_ += R"(,"method":"tools/call","params":{"name":"echo","arguments":)";
        out_ += arguments_;
        out_ += "}}\n";
        slot& s = ring_[id & mask_];
        s.id = id;
        s.sent_at = now;
    }

    // Correlates one reply. False for lines that are not replies to a request.
    bool on_reply(std::string_view line, clk::time_point now, raw_figures& f) {
        const auto k = line.find(R"("id":)");
        if (k == std::string_view::npos) return false;
        const char* b = line.data() + k + 5;
        const char* e = line.data() + line.size();
        std::uint64_t id = 0;
        auto [p, ec] = std::from_chars(b, e, id);
        if (ec != std::errc{}) return false;
        slot& s = ring_[id & mask_];
        if (s.id != id) {
            ++f.mismatched;
            return true;
        }
        s.id = 0;
        f.latency_sum_s += std::chrono::duration<double>(now - s.sent_at).count();
        const std::string_view rest(p, static_cast<std::size_t>(e - p));
        // fast_echo_server writes the id first, the TypeScript SDK the result first.
        if (rest.starts_with(R"(,"result":)") || line.starts_with(R"({"result":)")) ++f.ok;
        else ++f.errors;
        return true;
    }

    std::string_view next_line() {
        for (;;) {
            if (auto* nl = static_cast<char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_))) {
                const std::size_t line_end = static_cast<std::size_t>(nl - buf_.data());
                const std::string_view line(buf_.data() + begin_, line_end - begin_);
                begin_ = line_end + 1;
                return line;
            }
            if (end_ == buf_.size()) compact_or_grow();
            const ssize_t n = ::read(from_server_, buf_.data() + end_, buf_.size() - end_);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return {};
            end_ += static_cast<std::size_t>(n);
        }
    }

    void compact_or_grow() {
        if (begin_ > 0) {
            std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
            end_ -= begin_;
            begin_ = 0;
        } else {
            buf_.resize(buf_.size() * 2);
        }
    }

    void write_all(std::string_view s) {
        while (!s.empty()) {
            const ssize_t w = ::write(to_server_, s.data(), s.size());
            if (w < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("raw_driver: write failed: ") + std::strerror(errno));
            }
            s.remove_prefix(static_cast<std::size_t>(w));
        }
    }

    pid_t pid_ = -1;
    int to_server_ = -1, from_server_ = -1;
    std::uint64_t next_id_ = 1;
    std::string arguments_ = R"({"message":"x"})";
    std::string out_;
    std::vector<char> buf_;
    std::size_t begin_ = 0, end_ = 0;
    std::vector<slot> ring_;
    std::size_t mask_ = 0;
};

}  // namespace bench
