// A minimal, fast Streamable HTTP MCP server for bench_http: HTTP/1.1
// keep-alive on 127.0.0.1, one thread, epoll, no library (libc and the C++
// standard library only), no JSON library. It reads the JSON-RPC id and method
// of each POST body in place and answers every request parsed from one read()
// with one write(), so that the client, not the server, is what gets measured.
//
//     fast_http_echo_server [--port P]        (default 0: an ephemeral port)
//
// Prints `MCP_LOADTEST_LISTENING http://127.0.0.1:<port>/mcp` on stdout once
// listening; exits on stdin EOF (when stdin is a pipe or socket) or SIGTERM.
//
//   POST /mcp  initialize          200, Mcp-Session-Id: fast-http-echo-<n>, an InitializeResult
//                                  (protocolVersion 2025-11-25, one tool capability)
//              server/discover     400, {"jsonrpc":"2.0","id":null,"error":{"code":-32000,...}}
//                                  (what a legacy server answers: the client falls back to initialize)
//              notifications       202, empty body (so are JSON-RPC responses from the client)
//              tools/call          200 application/json
//                                  {"jsonrpc":"2.0","id":<id>,"result":{"content":[{"type":"text","text":"ok"}]}}
//              ping, tools/list    200, {} / one tool `echo`
//              anything else       200, a JSON-RPC error -32601
//   GET /mcp   405 (no standalone stream)       DELETE /mcp  200
//   other paths 404; other methods 405; a body without Content-Length (chunked) 411, then close.
//
// Session ids are not checked (it is a benchmark fixture, not a server).
// Requests are read in place: the request line, then headers scanned only for
// Content-Length and `Connection: close`; the body's id is the token after the
// first `"id":`, its method the string after the first `"method":"` (the
// envelopes mcp-loadtest and wrk's script send start
// {"jsonrpc":"2.0","id":N,"method":"...", which is read without searching).
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::size_t max_head = 64 * 1024;
constexpr std::size_t max_body = 16 * 1024 * 1024;

struct conn {
    int fd = -1;
    std::string in;        // unparsed bytes (only what one read() left incomplete)
    std::string out;       // replies not yet written
    bool want_out = false; // EPOLLOUT registered
    bool close_after = false;
};

std::vector<conn*> conns;  // by fd
int ep = -1;
unsigned long sessions = 0;

void append_uint(std::string& s, std::size_t v) {
    char b[24];
    int n = 0;
    do {
        b[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) s += b[--n];
}

bool iequals_prefix(std::string_view line, std::string_view name) {
    if (line.size() < name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        char c = line[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        if (c != name[i]) return false;
    }
    return true;
}

std::string_view trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
    return v;
}

void respond(conn& c, std::string_view status, std::string_view extra_headers, std::string_view content_type,
             std::string_view body) {
    std::string& o = c.out;
    o += "HTTP/1.1 ";
    o += status;
    o += "\r\n";
    if (!content_type.empty()) {
        o += "Content-Type: ";
        o += content_type;
        o += "\r\n";
    }
    o += extra_headers;
    if (c.close_after) o += "Connection: close\r\n";
    o += "Content-Length: ";
    append_uint(o, body.size());
    o += "\r\n\r\n";
    o += body;
}

// The value after `"key":` (raw token: number, "string" with quotes, null...).
std::string_view raw_member(std::string_view body, std::string_view key_with_colon) {
    const auto k = body.find(key_with_colon);
    if (k == std::string_view::npos) return {};
    std::size_t b = k + key_with_colon.size();
    while (b < body.size() && body[b] == ' ') ++b;
    std::size_t e = b;
    if (e < body.size() && body[e] == '"') {
        ++e;
        while (e < body.size() && body[e] != '"') e += body[e] == '\\' ? 2 : 1;
        ++e;
    } else {
        while (e < body.size() && body[e] != ',' && body[e] != '}' && body[e] != ' ') ++e;
    }
    if (e > body.size()) e = body.size();
    return body.substr(b, e - b);
}

std::string_view string_member(std::string_view body, std::string_view key_colon_quote) {
    const auto k = body.find(key_colon_quote);
    if (k == std::string_view::npos) return {};
    const std::size_t b = k + key_colon_quote.size();
    std::size_t e = b;
    while (e < body.size() && body[e] != '"') e += body[e] == '\\' ? 2 : 1;
    if (e > body.size()) e = body.size();
    return body.substr(b, e - b);
}

// id and method of a JSON-RPC body; id empty for a notification, method empty
// for a response (or junk).
void envelope(std::string_view body, std::string_view& id, std::string_view& method) {
    constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)";
    constexpr std::string_view mid = R"(,"method":")";
    if (body.starts_with(head)) {
        std::size_t i = head.size();
        const std::size_t id_begin = i;
        while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i;
        if (i > id_begin && body.substr(i, mid.size()) == mid) {
            id = body.substr(id_begin, i - id_begin);
            i += mid.size();
            const std::size_t m = body.find('"', i);
            if (m != std::string_view::npos) {
                method = body.substr(i, m - i);
                return;
            }
        }
    }
    method = string_member(body, R"("method":")");
    id = raw_member(body, R"("id":)");
}

void rpc_reply(conn& c, std::string_view id, std::string_view result_or_error_member) {
    // {"jsonrpc":"2.0","id":<id>,<member>}
    std::string& o = c.out;
    const std::size_t body_len = 22 + id.size() + 1 + result_or_error_member.size() + 1;
    o += "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
    if (c.close_after) o += "Connection: close\r\n";
    o += "Content-Length: ";
    append_uint(o, body_len);
    o += "\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":";
    o += id;
    o += ',';
    o += result_or_error_member;
    o += '}';
}

void handle_post(conn& c, std::string_view body) {
    std::string_view id, method;
    envelope(body, id, method);
    if (method.empty() || id.empty()) {  // a notification or a response
        respond(c, "202 Accepted", {}, {}, {});
        return;
    }
    if (method == "tools/call") {
        rpc_reply(c, id, R"("result":{"content":[{"type":"text","text":"ok"}]})");
    } else if (method == "initialize") {
        std::string sid = "fast-http-echo-";
        append_uint(sid, ++sessions);
        std::string body_text = R"({"jsonrpc":"2.0","id":)";
        body_text += id;
        body_text += R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},)"
                     R"("serverInfo":{"name":"fast_http_echo_server","version":"0"}}})";
        respond(c, "200 OK", "Mcp-Session-Id: " + sid + "\r\n", "application/json", body_text);
    } else if (method == "server/discover") {
        respond(c, "400 Bad Request", {}, "application/json",
                R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}})");
    } else if (method == "ping") {
        rpc_reply(c, id, R"("result":{})");
    } else if (method == "tools/list") {
        rpc_reply(c, id,
                  R"("result":{"tools":[{"name":"echo","description":"answers ok",)"
                  R"("inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]})");
    } else {
        rpc_reply(c, id, R"("error":{"code":-32601,"message":"Method not found"})");
    }
}

void close_conn(conn* c) {
    ::epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, nullptr);
    ::close(c->fd);
    conns[static_cast<std::size_t>(c->fd)] = nullptr;
    delete c;
}

// Parses and answers every complete request in `data`; returns the bytes
// consumed, or -1 when the connection must be closed once `out` is written.
long process(conn& c, std::string_view data) {
    std::size_t used = 0;
    while (used < data.size() && !c.close_after) {
        const std::string_view rest = data.substr(used);
        const std::size_t end_of_head = rest.find("\r\n\r\n");
        if (end_of_head == std::string_view::npos) {
            if (rest.size() > max_head) return -1;
            break;
        }
        const std::string_view head = rest.substr(0, end_of_head + 2);
        const std::size_t eol = head.find("\r\n");
        const std::string_view request_line = head.substr(0, eol);
        const std::size_t sp1 = request_line.find(' ');
        const std::size_t sp2 = request_line.find(' ', sp1 + 1);
        if (sp1 == std::string_view::npos || sp2 == std::string_view::npos) return -1;
        const std::string_view method = request_line.substr(0, sp1);
        std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
        if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);

        std::size_t content_length = 0;
        bool chunked = false;
        std::size_t pos = eol + 2;
        while (pos < head.size()) {
            const std::size_t e = head.find("\r\n", pos);
            const std::string_view line = head.substr(pos, e - pos);
            pos = e + 2;
            // Only the few headers that matter, told apart by their first letter.
            const char f = static_cast<char>(line.empty() ? 0 : (line[0] | 0x20));
            if (f == 'c') {
                if (iequals_prefix(line, "content-length:")) {
                    content_length = 0;
                    for (char d : trim(line.substr(15))) {
                        if (d < '0' || d > '9' || content_length > max_body) return -1;
                        content_length = content_length * 10 + static_cast<std::size_t>(d - '0');
                    }
                } else if (iequals_prefix(line, "connection:")) {
                    const std::string_view v = trim(line.substr(11));
                    if (v.size() == 5 && iequals_prefix(v, "close")) c.close_after = true;
                }
            } else if (f == 't' && iequals_prefix(line, "transfer-encoding:")) {
                chunked = true;
            }
        }
        if (chunked) {
            c.close_after = true;
            respond(c, "411 Length Required", {}, "text/plain", "chunked request bodies are not supported\n");
            return -1;
        }
        if (content_length > max_body) {
            c.close_after = true;
            respond(c, "413 Content Too Large", {}, "text/plain", "body too large\n");
            return -1;
        }
        const std::size_t total = end_of_head + 4 + content_length;
        if (rest.size() < total) break;  // the body is still coming
        const std::string_view body = rest.substr(end_of_head + 4, content_length);
        used += total;

        if (target != "/mcp") {
            respond(c, "404 Not Found", {}, "text/plain", "not found\n");
        } else if (method == "POST") {
            handle_post(c, body);
        } else if (method == "GET") {
            respond(c, "405 Method Not Allowed", "Allow: POST, DELETE\r\n", "text/plain", "no standalone stream\n");
        } else if (method == "DELETE") {
            respond(c, "200 OK", {}, {}, {});
        } else {
            respond(c, "405 Method Not Allowed", "Allow: POST, DELETE\r\n", "text/plain", "method not allowed\n");
        }
    }
    return c.close_after ? -1 : static_cast<long>(used);
}

// Writes what it can of c.out; false when the connection is finished with.
bool flush(conn& c) {
    std::size_t done = 0;
    while (done < c.out.size()) {
        const ssize_t w = ::send(c.fd, c.out.data() + done, c.out.size() - done, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) break;
            return false;
        }
        done += static_cast<std::size_t>(w);
    }
    c.out.erase(0, done);
    const bool want = !c.out.empty();
    if (want != c.want_out) {
        epoll_event ev{};
        ev.events = EPOLLIN | (want ? EPOLLOUT : 0u);
        ev.data.fd = c.fd;
        ::epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
        c.want_out = want;
    }
    return !(c.out.empty() && c.close_after);
}

char rbuf[256 * 1024];

void on_readable(conn* c) {
    const ssize_t n = ::read(c->fd, rbuf, sizeof rbuf);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close_conn(c);
        return;
    }
    if (n < 0) return;
    long used;
    std::size_t leftover_from = 0;
    if (c->in.empty()) {
        // The common case: whole requests in one read, parsed in place.
        const std::string_view data(rbuf, static_cast<std::size_t>(n));
        used = process(*c, data);
        if (used >= 0 && static_cast<std::size_t>(used) < data.size()) c->in.assign(data.substr(static_cast<std::size_t>(used)));
    } else {
        c->in.append(rbuf, static_cast<std::size_t>(n));
        used = process(*c, c->in);
        if (used >= 0) leftover_from = static_cast<std::size_t>(used);
        if (used >= 0) c->in.erase(0, leftover_from);
    }
    if (used < 0) c->close_after = true;
    if (!c->out.empty() || c->close_after) {
        if (!flush(*c)) close_conn(c);
    }
}

void on_accept(int lfd) {
    for (;;) {
        const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;  // EAGAIN (or a transient error)
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (static_cast<std::size_t>(fd) >= conns.size()) conns.resize(static_cast<std::size_t>(fd) + 1, nullptr);
        auto* c = new conn;
        c->fd = fd;
        conns[static_cast<std::size_t>(fd)] = c;
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
}

}  // namespace

int main(int argc, char** argv) {
    int port = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--port" && i + 1 < argc) port = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: fast_http_echo_server [--port P]\n");
            return 2;
        }
    }
    std::signal(SIGPIPE, SIG_IGN);
    const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(lfd, 4096) != 0) {
        std::fprintf(stderr, "fast_http_echo_server: cannot listen on 127.0.0.1:%d: %s\n", port, std::strerror(errno));
        return 1;
    }
    socklen_t len = sizeof addr;
    ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len);

    ep = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = lfd;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    // stdin EOF ends the server; epoll refuses regular files and /dev/null
    // (then only a signal ends it).
    ev.events = EPOLLIN;
    ev.data.fd = STDIN_FILENO;
    const bool watch_stdin = ::epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev) == 0;

    std::printf("MCP_LOADTEST_LISTENING http://127.0.0.1:%d/mcp\n", ntohs(addr.sin_port));
    std::fflush(stdout);

    epoll_event events[256];
    for (;;) {
        const int n = ::epoll_wait(ep, events, 256, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == lfd) {
                on_accept(lfd);
                continue;
            }
            if (watch_stdin && fd == STDIN_FILENO) {
                char b[512];
                const ssize_t r = ::read(STDIN_FILENO, b, sizeof b);
                if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) return 0;
                continue;
            }
            conn* c = static_cast<std::size_t>(fd) < conns.size() ? conns[static_cast<std::size_t>(fd)] : nullptr;
            if (!c) continue;
            if (events[i].events & (EPOLLERR | EPOLLHUP)) {
                close_conn(c);
                continue;
            }
            if ((events[i].events & EPOLLOUT) && !flush(*c)) {
                close_conn(c);
                continue;
            }
            if (events[i].events & EPOLLIN) on_readable(c);
        }
    }
}
