// A minimal, fast stdio MCP server for the throughput benchmarks: no library,
// no JSON library. It hand-scans each newline-delimited request for its id,
// method and tool name, and writes all the replies produced by one read() with
// one write(), so that the client, not the server, is what gets measured.
//
//     fast_echo_server [--hold N]
//
// Answers initialize (echoing protocolVersion), ping, tools/list (one tool,
// `echo`) and tools/call (`{"content":[{"type":"text","text":"ok"}]}`);
// ignores notifications and replies; answers anything else with -32601.
// --hold N: keeps every tools/call reply back until N tools/call requests have
// been received, then sends them all and behaves normally (the 100k-in-flight
// test). Exits on stdin EOF.
//
// Requests that start the way mcp-loadtest and the raw driver write them
// ({"jsonrpc":"2.0","id":N,"method":"...","params":{"name":"..."...) are read
// in place (~500 instructions per tools/call, replies included); anything else
// falls back to searching for the first `"method":"`, `"id":` and `"name":"`,
// which is naive but enough for a benchmark fixture (it is not a server).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace {

void write_all(const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(STDOUT_FILENO, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            std::exit(0);  // the client went away
        }
        data += w;
        n -= static_cast<std::size_t>(w);
    }
}

// The value after `"key":` (raw token: number, "string" with quotes, null...).
std::string_view raw_member(std::string_view line, std::string_view key_with_colon) {
    const auto k = line.find(key_with_colon);
    if (k == std::string_view::npos) return {};
    std::size_t b = k + key_with_colon.size();
    while (b < line.size() && line[b] == ' ') ++b;
    std::size_t e = b;
    if (e < line.size() && line[e] == '"') {
        ++e;
        while (e < line.size() && line[e] != '"') e += line[e] == '\\' ? 2 : 1;
        ++e;
    } else {
        while (e < line.size() && line[e] != ',' && line[e] != '}' && line[e] != ' ') ++e;
    }
    if (e > line.size()) e = line.size();
    return line.substr(b, e - b);
}

// The contents of the string after `"key":"` (without quotes).
std::string_view string_member(std::string_view line, std::string_view key_colon_quote) {
    const auto k = line.find(key_colon_quote);
    if (k == std::string_view::npos) return {};
    const std::size_t b = k + key_colon_quote.size();
    std::size_t e = b;
    while (e < line.size() && line[e] != '"') e += line[e] == '\\' ? 2 : 1;
    if (e > line.size()) e = line.size();
    return line.substr(b, e - b);
}

struct server {
    std::size_t hold = 0;          // tools/call replies held until this many were received
    std::size_t calls_seen = 0;
    std::string out;               // replies for the current read
    std::string held;              // held tools/call replies

    void begin_reply(std::string& to, std::string_view id) {
        to += R"({"jsonrpc":"2.0","id":)";
        to += id;
    }

    void error(std::string_view id, int code, std::string_view message) {
        begin_reply(out, id);
        out += R"(,"error":{"code":)";
        out += std::to_string(code);
        out += R"(,"message":")";
        out += message;
        out += "\"}}\n";
    }

    // Envelopes as mcp-loadtest and the raw driver write them start with
    // {"jsonrpc":"2.0","id":<digits>,"method":"<method>": read those in place,
    // without searching. Anything else goes through the searching path.
    static bool fast_envelope(std::string_view line, std::string_view& id, std::string_view& method,
                              std::string_view& rest) {
        constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)";
        constexpr std::string_view mid = R"(,"method":")";
        if (!line.starts_with(head)) return false;
        std::size_t i = head.size();
        const std::size_t id_begin = i;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
        if (i == id_begin || line.substr(i, mid.size()) != mid) return false;
        id = line.substr(id_begin, i - id_begin);
        i += mid.size();
        const std::size_t m = line.find('"', i);
        if (m == std::string_view::npos) return false;
        method = line.substr(i, m - i);
        rest = line.substr(m + 1);
        return true;
    }

    void handle(std::string_view line) {
        std::string_view id, method, rest;
        if (!fast_envelope(line, id, method, rest)) {
            method = string_member(line, R"("method":")");
            if (method.empty()) return;  // a reply to something we never sent, or junk: ignore
            id = raw_member(line, R"("id":)");
            if (id.empty()) return;  // a notification
            rest = line;
        }
        if (method == "tools/call") {
            constexpr std::string_view name_first = R"(,"params":{"name":")";
            const std::string_view tool = rest.starts_with(name_first)
                                              ? rest.substr(name_first.size(), rest.find('"', name_first.size()) -
                                                                                   name_first.size())
                                              : string_member(line, R"("name":")");
            if (tool != "echo") {
                error(id, -32602, "Unknown tool");
                return;
            }
            ++calls_seen;
            if (hold > 0) {
                begin_reply(held, id);
                held += R"(,"result":{"content":[{"type":"text","text":"ok"}]}})"
                        "\n";
                if (calls_seen >= hold) {
                    out += held;
                    held.clear();
                    held.shrink_to_fit();
                    hold = 0;
                }
                return;
            }
            begin_reply(out, id);
            out += R"(,"result":{"content":[{"type":"text","text":"ok"}]}})"
                   "\n";
        } else if (method == "initialize") {
            std::string_view version = string_member(line, R"("protocolVersion":")");
            if (version.empty()) version = "2025-11-25";
            begin_reply(out, id);
            out += R"(,"result":{"protocolVersion":")";
            out += version;
            out += R"(","capabilities":{"tools":{}},"serverInfo":{"name":"fast_echo_server","version":"0.1"}}})"
                   "\n";
        } else if (method == "tools/list") {
            begin_reply(out, id);
            out += R"(,"result":{"tools":[{"name":"echo","description":"Answers ok",)"
                   R"("inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]}})"
                   "\n";
        } else if (method == "ping") {
            begin_reply(out, id);
            out += ",\"result\":{}}\n";
        } else {
            error(id, -32601, "Method not found");
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    server s;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--hold" && i + 1 < argc) {
            s.hold = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: fast_echo_server [--hold N]\n");
            return 2;
        }
    }
    if (s.hold > 0) s.held.reserve(s.hold * 72);
    std::vector<char> buf(1 << 20);
    std::size_t begin = 0, end = 0;
    s.out.reserve(1 << 20);
    for (;;) {
        if (end == buf.size()) {
            if (begin > 0) {
                std::memmove(buf.data(), buf.data() + begin, end - begin);
                end -= begin;
                begin = 0;
            } else {
                buf.resize(buf.size() * 2);
            }
        }
        const ssize_t n = ::read(STDIN_FILENO, buf.data() + end, buf.size() - end);
        if (n < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        if (n == 0) return 0;  // EOF: the client closed our stdin
        end += static_cast<std::size_t>(n);
        for (;;) {
            auto* nl = static_cast<char*>(std::memchr(buf.data() + begin, '\n', end - begin));
            if (!nl) break;
            const std::size_t line_end = static_cast<std::size_t>(nl - buf.data());
            s.handle(std::string_view(buf.data() + begin, line_end - begin));
            begin = line_end + 1;
        }
        if (begin == end) begin = end = 0;
        if (!s.out.empty()) {
            write_all(s.out.data(), s.out.size());
            s.out.clear();
        }
    }
}
