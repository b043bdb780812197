// Requests/s over Streamable HTTP: one mcp-loadtest session against `wrk`,
// measured in the same run against the same fast loopback server
// (fast_http_echo_server.cpp: epoll, one thread, HTTP/1.1 keep-alive).
//
//     bench_http [options]
//       --seconds S      measured time per side and row (default 5), as round(S) alternating
//                        1-second segments: wrk 1 s, the library S/round(S) s, wrk, ...
//       --smoke          CI: one segment, wrk 1 s (its minimum) and the library 0.5 s; checks only
//                        that both sides produce nonzero figures
//       --no-pin         leave client and server on any CPU
//       --library-only   skip wrk (e.g. under perf or valgrind)
//       --server PATH    the server (default: the one built alongside)
//       --wrk PATH       wrk (default: `wrk` on PATH; its absence skips the wrk side with a message)
//     bench_http --count N [--connections C] [--window W] [--bearer]
//                      exactly N calls, W in flight over a C-connection pool (default 16/16),
//                      nothing else (for callgrind or perf); --bearer: every request carries
//                      an Authorization: Bearer header with a 43-character token, as a cached
//                      OAuth token is sent (the server ignores it)
//     bench_http --wrk-once S [--connections C] [--wrk PATH]
//                      wrk alone for S seconds on C connections (default 16), printing its
//                      request count (http_instructions_per_request.sh runs it under callgrind)
//
// Rows, each measured in alternating segments, wrk then the library (so drift
// on a shared machine hits both): 16 connections (wrk -c16; the library with a 16-connection pool
// and 16 calls in flight), 16 connections with 64 calls in flight (the library
// queues 48 of them; wrk cannot: one request per connection), 1 connection.
//
// wrk -t1 posts a fixed tools/call body (the same bytes the library writes,
// with id 1) carrying the Mcp-Session-Id of an initialize this program sends
// first, and the same Accept / Content-Type / MCP-Protocol-Version headers.
// Its request is formatted once, so wrk's side is the cheapest client there
// is. The library side is a closed loop: W coroutines, each awaiting
// session.call_tool("echo", {"message":"x"}) back to back, on an io_context
// run on this thread. Only ok calls are counted.
//
// Pinning (default, when at least 2 CPUs are allowed): this process on the
// first allowed CPU (sched_setaffinity; wrk, its child, inherits it), the
// server on the second (sched_setaffinity on its pid after launch()). Both
// are checked in /proc/<pid>/status and printed.
//
// It prints figures and the targets (library >= 0.95x wrk at 16 and at 1 connection);
// it asserts no timing. It exits non-zero if a call failed, wrk saw errors or
// non-2xx replies, or (--smoke) either side measured zero.
#include <mcp_loadtest/mcp_loadtest.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <netinet/in.h>
#include <optional>
#include <sched.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef FAST_HTTP_ECHO_SERVER
#define FAST_HTTP_ECHO_SERVER "fast_http_echo_server"
#endif

extern char** environ;

namespace mlt = mcp_loadtest;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// The body the library writes for call_tool("echo", {"message":"x"}), with id 1.
constexpr const char* tools_call_body =
    R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}})";

struct config {
    double seconds = 5;
    bool smoke = false;
    bool pin = true;
    bool library_only = false;
    std::string server = FAST_HTTP_ECHO_SERVER;
    std::string wrk = "wrk";
    std::uint64_t count = 0;
    std::size_t count_connections = 16, count_window = 16;
    int wrk_once_seconds = 0;  // --wrk-once: wrk alone, once, for this many seconds
    bool bearer = false;       // --count: with a bearer token on every request
};

// ---- small utilities ----------------------------------------------------------

bool on_path(const std::string& name, std::string* found = nullptr) {
    if (name.find('/') != std::string::npos) {
        if (found) *found = name;
        return ::access(name.c_str(), X_OK) == 0;
    }
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
        if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) {
            if (found) *found = dir + "/" + name;
            return true;
        }
    return false;
}

cpu_set_t one_cpu(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return s;
}

std::string cpus_allowed(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("Cpus_allowed_list:", 0) == 0) {
            std::string v = line.substr(18);
            v.erase(0, v.find_first_not_of(" \t"));
            return v;
        }
    return "?";
}

// CPU seconds (user + system) a process has used so far (/proc/<pid>/stat).
double process_cpu_seconds(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    if (paren == std::string::npos) return 0;
    std::istringstream rest(text.substr(paren + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    // Fields after the command: state(3) ... utime(14) stime(15).
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
        if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// This process's CPU time so far: user + system, and user alone.
std::pair<double, double> self_cpu_seconds() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return {seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime), seconds_of(ru.ru_utime)};
}

std::string fmt_rate(double r) {
    char b[32];
    if (r >= 1e6) std::snprintf(b, sizeof b, "%.2fM", r / 1e6);
    else std::snprintf(b, sizeof b, "%.1fk", r / 1e3);
    return b;
}

// ---- the session id for wrk: initialize over a plain blocking socket -----------------

struct url_parts {
    std::string host = "127.0.0.1";
    int port = 0;
    std::string target = "/mcp";
};

std::optional<url_parts> parse_http_url(const std::string& url) {
    constexpr std::string_view scheme = "http://";
    if (url.rfind(scheme, 0) != 0) return std::nullopt;
    const std::string rest = url.substr(scheme.size());
    const auto slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    const auto colon = authority.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    url_parts u;
    u.host = authority.substr(0, colon);
    u.port = std::atoi(authority.substr(colon + 1).c_str());
    u.target = slash == std::string::npos ? "/" : rest.substr(slash);
    return u;
}

// One POST on a fresh connection; returns the raw response (head and body).
std::string http_post_once(const url_parts& u, const std::string& body, const std::string& extra_headers) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(u.port));
    ::inet_pton(AF_INET, u.host.c_str(), &a.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot connect to the server: " + std::string(std::strerror(errno)));
    }
    std::string req = "POST " + u.target + " HTTP/1.1\r\nHost: " + u.host + ":" + std::to_string(u.port) +
                      "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" +
                      extra_headers + "Connection: close\r\nContent-Length: " + std::to_string(body.size()) +
                      "\r\n\r\n" + body;
    for (std::size_t off = 0; off < req.size();) {
        const ssize_t w = ::write(fd, req.data() + off, req.size() - off);
        if (w <= 0) {
            ::close(fd);
            throw std::runtime_error("write to the server failed");
        }
        off += static_cast<std::size_t>(w);
    }
    std::string resp;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        resp.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return resp;
}

std::string header_value(const std::string& response, const std::string& lower_name) {
    std::string lower = response.substr(0, response.find("\r\n\r\n"));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const auto at = lower.find("\r\n" + lower_name + ":");
    if (at == std::string::npos) return {};
    std::size_t b = at + 2 + lower_name.size() + 1;
    const std::size_t e = response.find("\r\n", b);
    while (b < e && response[b] == ' ') ++b;
    return response.substr(b, e - b);
}

// ---- wrk ---------------------------------------------------------------------------

struct wrk_figures {
    bool ran = false;
    double requests_per_s = 0;
    std::uint64_t requests = 0;
    std::uint64_t non_2xx = 0;
    std::string socket_errors;
    double client_cpu_s = 0, client_user_s = 0, server_cpu_s = 0, wall_s = 0;
    std::string output;
};

wrk_figures run_wrk(const std::string& wrk, const std::string& script, const std::string& url, std::size_t connections,
                    int seconds, pid_t server_pid) {
    wrk_figures f;
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    posix_spawn_file_actions_t fa;
    ::posix_spawn_file_actions_init(&fa);
    ::posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO);
    std::vector<std::string> args{wrk, "-t1", "-c" + std::to_string(connections), "-d" + std::to_string(seconds) + "s",
                                  "-s", script, url};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const double server0 = process_cpu_seconds(server_pid);
    const auto t0 = clk::now();
    pid_t pid = -1;
    const int err = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    if (err != 0) {
        ::close(out[0]);
        throw std::runtime_error("cannot start " + wrk + ": " + std::strerror(err));
    }
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        f.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    rusage ru{};
    while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    f.wall_s = std::chrono::duration<double>(clk::now() - t0).count();
    f.server_cpu_s = process_cpu_seconds(server_pid) - server0;
    f.client_cpu_s = seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime);
    f.client_user_s = seconds_of(ru.ru_utime);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return f;
    const auto rps = f.output.find("Requests/sec:");
    if (rps == std::string::npos) return f;
    f.ran = true;
    f.requests_per_s = std::strtod(f.output.c_str() + rps + 13, nullptr);
    // "  123456 requests in 5.00s, 12.34MB read"
    if (const auto in = f.output.find(" requests in "); in != std::string::npos) {
        std::size_t b = f.output.rfind('\n', in);
        b = b == std::string::npos ? 0 : b + 1;
        f.requests = std::strtoull(f.output.c_str() + b, nullptr, 10);
    }
    if (const auto n2 = f.output.find("Non-2xx or 3xx responses:"); n2 != std::string::npos)
        f.non_2xx = std::strtoull(f.output.c_str() + n2 + 25, nullptr, 10);
    if (const auto se = f.output.find("Socket errors:"); se != std::string::npos)
        f.socket_errors = f.output.substr(se, f.output.find('\n', se) - se);
    return f;
}

// ---- the library driver -----------------------------------------------------------

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
    double client_cpu_s = 0, client_user_s = 0, server_cpu_s = 0;
    std::string first_failure;
    [[nodiscard]] double per_second() const { return seconds > 0 ? static_cast<double>(ok) / seconds : 0; }
};

// Coroutine parameters are references and pointers only (GCC 12 can mis-copy
// by-value class-type coroutine parameters into the frame).
asio::awaitable<void> lib_worker(mlt::session& s, const mlt::arguments& args, const mlt::call_options& opts,
                                 lib_run_state* st) {
    while (!st->stop && st->issued < st->limit) {
        ++st->issued;
        mlt::call_result r = co_await s.call_tool("echo", args, opts);
        if (r.ok()) {
            ++st->ok;
        } else if (st->failed++ == 0) {
            st->first_failure = r.describe_call() + ": " + r.describe();
        }
    }
    if (--st->running == 0) st->done.cancel();
}

// `window` calls in flight for `duration_ns` (or until `limit` calls were issued).
asio::awaitable<lib_figures> lib_run(mlt::session& s, const mlt::arguments& args, std::size_t window,
                                     std::int64_t duration_ns, pid_t server_pid, std::uint64_t limit = UINT64_MAX) {
    auto ex = co_await asio::this_coro::executor;
    auto st = std::make_shared<lib_run_state>(ex);
    st->limit = limit;
    mlt::call_options opts;
    opts.timeout = 30s;
    const auto cpu0 = self_cpu_seconds();
    const double server0 = server_pid > 0 ? process_cpu_seconds(server_pid) : 0;
    const auto t0 = clk::now();
    st->running = window;
    for (std::size_t i = 0; i < window; ++i)
        asio::co_spawn(ex, lib_worker(s, args, opts, st.get()), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    if (limit == UINT64_MAX) {
        st->stop_timer.expires_after(std::chrono::nanoseconds(duration_ns));
        st->stop_timer.async_wait([st](const asio::error_code& ec) {
            if (!ec) st->stop = true;
        });
    }
    asio::error_code ec;
    co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    lib_figures f;
    f.seconds = std::chrono::duration<double>(clk::now() - t0).count();
    const auto cpu1 = self_cpu_seconds();
    f.client_cpu_s = cpu1.first - cpu0.first;
    f.client_user_s = cpu1.second - cpu0.second;
    f.server_cpu_s = server_pid > 0 ? process_cpu_seconds(server_pid) - server0 : 0;
    st->stop_timer.cancel();
    f.ok = st->ok;
    f.failed = st->failed;
    f.first_failure = st->first_failure;
    co_return f;
}

mlt::arguments bench_arguments() {
    const mlt::json a = mlt::args("message", "x");
    return mlt::arguments(mlt::raw_json::from(a));  // serialized once; every call reuses the text
}

// wrk's script: one fixed tools/call with the session id of an initialize sent here first
// (and its `initialized`). Returns the script's path; `sid` gets the session id.
std::string write_wrk_script(const std::string& url, std::string* sid_out) {
    const auto u = parse_http_url(url);
    if (!u) throw std::runtime_error("cannot read the server's URL " + url);
    const std::string init =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
        R"("capabilities":{},"clientInfo":{"name":"bench_http-wrk","version":"0"}}})";
    const std::string reply = http_post_once(*u, init, "");
    const std::string sid = header_value(reply, "mcp-session-id");
    if (sid.empty() || reply.find("\"protocolVersion\"") == std::string::npos)
        throw std::runtime_error("initialize for wrk failed: " + reply.substr(0, 300));
    const std::string version_header = "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: " + sid + "\r\n";
    (void)http_post_once(*u, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", version_header);
    char tmpl[] = "/tmp/bench_http_wrk_XXXXXX.lua";
    const int fd = ::mkstemps(tmpl, 4);
    if (fd < 0) throw std::runtime_error("mkstemps failed");
    const std::string script_path = tmpl;
    std::string lua = "-- written by bench_http: one fixed tools/call, formatted once by wrk\n"
                      "wrk.method = \"POST\"\n"
                      "wrk.headers[\"Accept\"] = \"application/json, text/event-stream\"\n"
                      "wrk.headers[\"Content-Type\"] = \"application/json\"\n"
                      "wrk.headers[\"MCP-Protocol-Version\"] = \"2025-11-25\"\n"
                      "wrk.headers[\"Mcp-Session-Id\"] = \"" + sid + "\"\n"
                      "wrk.body = '" + std::string(tools_call_body) + "'\n";
    if (::write(fd, lua.data(), lua.size()) != static_cast<ssize_t>(lua.size()))
        throw std::runtime_error("cannot write the wrk script");
    ::close(fd);
    *sid_out = sid;
    return script_path;
}

// What one row measured: wrk and the library alternating, segment by segment.
struct row_figures {
    // wrk: requests and its own measured seconds, summed over segments
    double wrk_requests = 0, wrk_seconds = 0, wrk_cpu_s = 0, wrk_user_s = 0, wrk_server_cpu_s = 0, wrk_wall_s = 0;
    bool wrk_ok = true;
    // the library, summed over segments
    lib_figures lib;
    double min_ratio = 0, max_ratio = 0;
    [[nodiscard]] double wrk_rate() const { return wrk_seconds > 0 ? wrk_requests / wrk_seconds : 0; }
};

struct wrk_setup {
    bool enabled = false;
    std::string path, script, url;
};

// A fresh session with a `connections`-connection pool and a short warm-up
// (the pool opens its connections on demand); then `segments` times: wrk for
// `wrk_seconds` s, the library for `lib_seconds` s (so drift on a shared
// machine hits both sides alike).
asio::awaitable<row_figures> measure_row(const std::string& url, const wrk_setup& wrk, std::size_t connections,
                                         std::size_t window, int segments, int wrk_seconds, double lib_seconds,
                                         pid_t server_pid) {
    const mlt::arguments args = bench_arguments();
    mlt::http_server http;
    http.url = url;
    http.connections = connections;
    const mlt::any_server server = http;  // named first (GCC 12 and temporaries inside co_await)
    const mlt::client_options options;
    mlt::session s = co_await mlt::connect(server, options);
    const auto ns = [](double secs) { return static_cast<std::int64_t>(secs * 1e9); };
    const lib_figures warm = co_await lib_run(s, args, window, ns(std::min(0.2, lib_seconds / 5)), server_pid);
    row_figures f;
    f.lib.failed = warm.failed;
    f.lib.first_failure = warm.first_failure;
    for (int seg = 0; seg < segments; ++seg) {
        double wrk_rate = 0;
        if (wrk.enabled) {
            const wrk_figures w = run_wrk(wrk.path, wrk.script, wrk.url, connections, wrk_seconds, server_pid);
            if (!w.ran) {
                std::printf("wrk failed:\n%s\n", w.output.c_str());
                f.wrk_ok = false;
            } else if (w.non_2xx || !w.socket_errors.empty()) {
                std::printf("wrk: %llu non-2xx replies; %s\n", static_cast<unsigned long long>(w.non_2xx),
                            w.socket_errors.c_str());
                f.wrk_ok = false;
            }
            if (w.ran && w.requests_per_s > 0) {
                const double n = w.requests ? static_cast<double>(w.requests) : w.requests_per_s * wrk_seconds;
                f.wrk_requests += n;
                f.wrk_seconds += n / w.requests_per_s;  // wrk's own measured time
                wrk_rate = w.requests_per_s;
            }
            f.wrk_cpu_s += w.client_cpu_s;
            f.wrk_user_s += w.client_user_s;
            f.wrk_server_cpu_s += w.server_cpu_s;
            f.wrk_wall_s += w.wall_s;
        }
        const lib_figures l = co_await lib_run(s, args, window, ns(lib_seconds), server_pid);
        f.lib.ok += l.ok;
        f.lib.failed += l.failed;
        if (f.lib.first_failure.empty()) f.lib.first_failure = l.first_failure;
        f.lib.seconds += l.seconds;
        f.lib.client_cpu_s += l.client_cpu_s;
        f.lib.client_user_s += l.client_user_s;
        f.lib.server_cpu_s += l.server_cpu_s;
        if (wrk_rate > 0) {
            const double ratio = l.per_second() / wrk_rate;
            f.min_ratio = seg == 0 ? ratio : std::min(f.min_ratio, ratio);
            f.max_ratio = seg == 0 ? ratio : std::max(f.max_ratio, ratio);
        }
    }
    if (s.stats().protocol_violations) {
        f.lib.failed += s.stats().protocol_violations;
        if (f.lib.first_failure.empty()) f.lib.first_failure = "the session recorded protocol violations";
    }
    co_await s.close();
    co_return f;
}

// ---- main ---------------------------------------------------------------------------

struct row_spec {
    std::size_t connections, window;
};

int failures = 0;

asio::awaitable<int> count_mode(const config& c) {
    mlt::stdio_server cmd;
    cmd.command = c.server;
    auto proc = co_await mlt::launch(cmd);
    const mlt::arguments args = bench_arguments();
    mlt::http_server http;
    http.url = proc.url();
    http.connections = c.count_connections;
    // The length of a PKCE-sized random token (32 bytes, base64url): what an OAuth client sends.
    if (c.bearer) http.bearer_token = "tok-Zm9yIHRoZSBiZW5jaCBvbmx5LCBub3QgYSBzZWNyZXQ";
    const mlt::any_server server = http;
    const mlt::client_options options;
    mlt::session s = co_await mlt::connect(server, options);
    const lib_figures f =
        co_await lib_run(s, args, c.count_window, std::int64_t{3600} * 1'000'000'000, -1, c.count);
    std::printf("library: %llu ok, %llu failed in %.2f s (%zu connections, %zu in flight)\n",
                static_cast<unsigned long long>(f.ok), static_cast<unsigned long long>(f.failed), f.seconds,
                c.count_connections, c.count_window);
    co_await s.close();
    co_await proc.close();
    co_return f.ok == c.count ? 0 : 1;
}

// wrk alone, once: what http_instructions_per_request.sh runs under callgrind to count wrk's
// instructions per request (the marginal cost between two durations).
asio::awaitable<int> wrk_once_mode(const config& c) {
    std::string wrk_path;
    if (!on_path(c.wrk, &wrk_path)) {
        std::printf("wrk: `%s` is not installed (Debian: apt-get install wrk)\n", c.wrk.c_str());
        co_return 2;
    }
    mlt::stdio_server cmd;
    cmd.command = c.server;
    auto proc = co_await mlt::launch(cmd);
    std::string sid;
    const std::string script = write_wrk_script(proc.url(), &sid);
    const wrk_figures w = run_wrk(wrk_path, script, proc.url(), c.count_connections, c.wrk_once_seconds, proc.pid());
    ::unlink(script.c_str());
    co_await proc.close();
    if (!w.ran || w.non_2xx != 0 || w.requests == 0) {
        std::printf("wrk failed:\n%s\n", w.output.c_str());
        co_return 1;
    }
    std::printf("wrk: %llu requests in %d s (%zu connections)\n", static_cast<unsigned long long>(w.requests),
                c.wrk_once_seconds, c.count_connections);
    co_return 0;
}

asio::awaitable<int> run_all(const config& c) {
    if (c.count > 0) co_return co_await count_mode(c);
    if (c.wrk_once_seconds > 0) co_return co_await wrk_once_mode(c);

    // CPUs: this process (and wrk) on the first allowed CPU, the server on the second.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    ::sched_getaffinity(0, sizeof allowed, &allowed);
    std::vector<int> cpus;
    for (int i = 0; i < CPU_SETSIZE; ++i)
        if (CPU_ISSET(i, &allowed)) cpus.push_back(i);
    const bool pin = c.pin && cpus.size() >= 2;
    if (pin) {
        const cpu_set_t mine = one_cpu(cpus[0]);
        if (::sched_setaffinity(0, sizeof mine, &mine) != 0) {
            std::printf("cannot pin to CPU %d: %s\n", cpus[0], std::strerror(errno));
            co_return 1;
        }
    }

    mlt::stdio_server cmd;
    cmd.command = c.server;
    auto proc = co_await mlt::launch(cmd);
    const std::string url = proc.url();
    if (pin) {
        const cpu_set_t theirs = one_cpu(cpus[1]);
        if (::sched_setaffinity(proc.pid(), sizeof theirs, &theirs) != 0) {
            std::printf("cannot pin the server to CPU %d: %s\n", cpus[1], std::strerror(errno));
            co_return 1;
        }
    }

    std::printf("bench_http: mcp-loadtest %s over Streamable HTTP vs wrk, fast_http_echo_server at %s, %ld online CPUs\n",
                MCP_LOADTEST_VERSION_STRING, url.c_str(), ::sysconf(_SC_NPROCESSORS_ONLN));
    if (pin)
        std::printf("pinned (sched_setaffinity): client (this process, and wrk, its child) on CPU %s, server on CPU %s\n",
                    cpus_allowed(::getpid()).c_str(), cpus_allowed(proc.pid()).c_str());
    else
        std::printf("not pinned (%s): client and server free on CPUs %s\n",
                    c.pin ? "fewer than 2 CPUs allowed" : "--no-pin", cpus_allowed(::getpid()).c_str());

    // wrk's script: the session id of an initialize sent here first.
    std::string wrk_path;
    const bool have_wrk = !c.library_only && on_path(c.wrk, &wrk_path);
    std::string script_path;
    if (c.library_only) {
        std::printf("wrk: skipped (--library-only)\n");
    } else if (!have_wrk) {
        std::printf("wrk: SKIPPED, `%s` is not installed (Debian: apt-get install wrk); library figures only\n",
                    c.wrk.c_str());
    } else {
        std::string sid;
        script_path = write_wrk_script(url, &sid);
        std::printf("wrk: %s -t1 -c<N> -d1s -s <script: POST tools/call, Mcp-Session-Id %s> %s\n", wrk_path.c_str(),
                    sid.c_str(), url.c_str());
    }
    // Segments of one second (wrk takes whole seconds), alternating; --smoke: one.
    const int segments = c.smoke ? 1 : std::max(1, static_cast<int>(c.seconds + 0.5));
    const int wrk_seconds = 1;
    const double lib_seconds = c.smoke ? c.seconds : c.seconds / segments;
    std::printf("library: one session per row, http_server.connections = N, W coroutines looping co_await "
                "call_tool(\"echo\", {\"message\":\"x\"}); %.2f s warm-up\n",
                std::min(0.2, lib_seconds / 5));
    if (have_wrk)
        std::printf("each row: %d x (wrk %d s, then the library %.2f s), summed; ratio range = per-segment min-max\n",
                    segments, wrk_seconds, lib_seconds);
    else
        std::printf("each row: %d x the library %.2f s, summed\n", segments, lib_seconds);
    std::printf("cpu = CPU time over wall time of the client (wrk / this process) and of the server; "
                "us/req = the client's CPU microseconds per request, user+system and user alone\n\n");
    std::printf("  conns  in flight |  wrk req/s  cpu  srv-cpu  us/req  user | library calls/s  cpu  srv-cpu  us/req  user | "
                "lib/wrk   (range)\n");
    std::fflush(stdout);

    wrk_setup wrk;
    wrk.enabled = have_wrk;
    wrk.path = wrk_path;
    wrk.script = script_path;
    wrk.url = url;
    const std::vector<row_spec> rows{{16, 16}, {16, 64}, {1, 1}};
    double ratio16 = -1, ratio1 = -1;
    bool zero = false;
    for (const auto& r : rows) {
        const row_figures f = co_await measure_row(url, wrk, r.connections, r.window, segments, wrk_seconds,
                                                   lib_seconds, proc.pid());
        const lib_figures& l = f.lib;
        if (!f.wrk_ok) ++failures;
        if (have_wrk && f.wrk_rate() <= 0) zero = true;
        if (l.failed) {
            std::printf("library: %llu failed calls (%zu connections, %zu in flight), first: %s\n",
                        static_cast<unsigned long long>(l.failed), r.connections, r.window, l.first_failure.c_str());
            ++failures;
        }
        if (l.ok == 0) zero = true;
        const double lib_rate = l.per_second();
        const double ratio = f.wrk_rate() > 0 ? lib_rate / f.wrk_rate() : 0;
        if (r.connections == 16 && r.window == 16) ratio16 = ratio;
        if (r.connections == 1 && r.window == 1) ratio1 = ratio;
        const auto pct = [](double cpu, double wall) { return wall > 0 ? 100.0 * cpu / wall : 0.0; };
        const auto us_per = [](double cpu, double n) { return n > 0 ? 1e6 * cpu / n : 0.0; };
        char wrk_cols[96];
        if (have_wrk && f.wrk_rate() > 0)
            std::snprintf(wrk_cols, sizeof wrk_cols, "%9s/s %3.0f%%  %5.0f%%  %6.2f %5.2f", fmt_rate(f.wrk_rate()).c_str(),
                          pct(f.wrk_cpu_s, f.wrk_wall_s), pct(f.wrk_server_cpu_s, f.wrk_wall_s),
                          us_per(f.wrk_cpu_s, f.wrk_requests), us_per(f.wrk_user_s, f.wrk_requests));
        else
            std::snprintf(wrk_cols, sizeof wrk_cols, "%38s", "(no wrk)");
        char ratio_col[48];
        if (f.wrk_rate() > 0)
            std::snprintf(ratio_col, sizeof ratio_col, "%6.2fx  (%.2f-%.2f)", ratio, f.min_ratio, f.max_ratio);
        else
            std::snprintf(ratio_col, sizeof ratio_col, "%7s", "-");
        std::printf("  %5zu  %9zu | %s | %13s/s %3.0f%%  %5.0f%%  %6.2f %5.2f | %s%s\n", r.connections, r.window,
                    wrk_cols, fmt_rate(lib_rate).c_str(), pct(l.client_cpu_s, l.seconds),
                    pct(l.server_cpu_s, l.seconds), us_per(l.client_cpu_s, static_cast<double>(l.ok)),
                    us_per(l.client_user_s, static_cast<double>(l.ok)), ratio_col,
                    r.window != r.connections ? "  vs wrk -c16" : "");
        std::fflush(stdout);
    }
    if (!script_path.empty()) ::unlink(script_path.c_str());

    if (have_wrk && ratio16 >= 0)
        std::printf("\nlibrary/wrk at 16 connections: %.2fx, target >= 0.95x: %s (printed, not asserted)\n", ratio16,
                    ratio16 >= 0.95 ? "met" : "missed");
    if (have_wrk && ratio1 >= 0)
        std::printf("library/wrk at 1 connection: %.2fx, target >= 0.95x: %s (printed, not asserted)\n", ratio1,
                    ratio1 >= 0.95 ? "met" : "missed");
    co_await proc.close();
    if (c.smoke) {
        std::printf("smoke: %s\n", zero ? "FAILED, a side measured zero" : "both sides measured nonzero figures");
        if (zero) co_return 1;
    }
    co_return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    config c;
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
        else if (a == "--smoke") {
            c.smoke = true;
            c.seconds = 0.5;
        } else if (a == "--no-pin") c.pin = false;
        else if (a == "--library-only") c.library_only = true;
        else if (a == "--server") c.server = next();
        else if (a == "--wrk") c.wrk = next();
        else if (a == "--count") c.count = std::strtoull(next(), nullptr, 10);
        else if (a == "--connections") c.count_connections = std::strtoull(next(), nullptr, 10);
        else if (a == "--window") c.count_window = std::strtoull(next(), nullptr, 10);
        else if (a == "--wrk-once") c.wrk_once_seconds = std::atoi(next());
        else if (a == "--bearer") c.bearer = true;
        else {
            std::fprintf(stderr, "unknown argument %s (see the comment at the top of bench_http.cpp)\n", a.c_str());
            return 2;
        }
    }
    asio::io_context ctx(1);
    int status = 1;
    asio::co_spawn(ctx, run_all(c), [&](std::exception_ptr e, int s) {
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                std::fprintf(stderr, "bench_http: %s\n", ex.what());
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
