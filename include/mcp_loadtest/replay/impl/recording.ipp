// Definitions of replay/recording.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/replay/recording.hpp>

#include <mcp_loadtest/detail/os/atomic_file.hpp>
#include <mcp_loadtest/detail/os/utc_time.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail::recording_impl {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

/// `t` as 2026-11-28T21:03:04Z, or with `.123456` before the Z when `micro`.
inline std::string iso8601(std::chrono::system_clock::time_point t, bool micro) {
    const auto us = std::chrono::floor<std::chrono::microseconds>(t.time_since_epoch()).count();
    const auto seconds = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);  // floor, also before 1970
    const std::tm tm = detail::utc_calendar(static_cast<std::time_t>(seconds));
    char buf[48];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out = buf;
    if (micro) {
        std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(us - seconds * 1000000));
        out += buf;
    }
    return out + "Z";
}

inline std::string json_string(std::string_view s) {
    // Invalid UTF-8 cannot be a JSON string: such bytes become U+FFFD (the one case not byte-exact).
    return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Whether `raw` can be written as itself under "message": one JSON value on one line, with no
/// whitespace around it (the reader trims, so such bytes would not come back).
inline bool writes_verbatim(std::string_view raw) {
    if (raw.empty() || raw.find_first_of("\n\r") != std::string_view::npos) return false;
    if (is_space(raw.front()) || is_space(raw.back())) return false;
    return json::accept(raw);
}

[[noreturn]] inline void bad_line(std::size_t line, const std::string& what) {
    recording_error e("recording line " + std::to_string(line) + ": " + what);
    e.line = line;
    throw e;
}

/// The member `key` of a line as a non-negative integer, or bad_line().
inline std::uint64_t unsigned_member(const json& j, const char* key, std::size_t line, std::string_view kind) {
    const auto it = j.find(key);
    if (it == j.end())
        bad_line(line, "a " + std::string(kind) + " line needs \"" + key + "\"; write it as to_jsonl() does");
    if (!it->is_number_unsigned())  // nlohmann parses 0 and up as unsigned
        bad_line(line, "'" + std::string(key) + "' must be a non-negative integer, not " + it->dump());
    return it->get<std::uint64_t>();
}

inline std::string string_member(const json& j, const char* key, std::size_t line) {
    const auto it = j.find(key);
    if (it == j.end()) return "";
    if (!it->is_string()) bad_line(line, "'" + std::string(key) + "' must be a string, not " + it->dump());
    return it->get<std::string>();
}

/// The text of a message line's "message" value exactly as the line holds it: the bytes after
/// the first `,"message":` up to the final '}', when they parse to the same value; else the
/// value re-serialised (a hand-written line with other spacing or member order).
inline std::string message_text(std::string_view line, const json& value) {
    static constexpr std::string_view marker = ",\"message\":";
    if (const auto at = line.find(marker); at != std::string_view::npos) {
        const auto close = line.rfind('}');
        if (close != std::string_view::npos && close > at + marker.size()) {
            const auto slice = trim(line.substr(at + marker.size(), close - at - marker.size()));
            const json again = json::parse(slice, nullptr, false);
            if (!again.is_discarded() && again == value) return std::string(slice);
        }
    }
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

inline bool is_server_method(const std::string& m) {
    return m == "sampling/createMessage" || m == "elicitation/create" || m == "roots/list";
}

[[noreturn]] inline void bad_element(std::size_t index, std::string_view text, const std::string& what) {
    std::string head(text.substr(0, 80));
    if (text.size() > 80) head += "...";
    throw recording_error("import_messages: element " + std::to_string(index) + " " + what +
                          "; each element must be one JSON-RPC message object or a JSON array of them: " + head);
}

}  // namespace detail::recording_impl

MCP_LOADTEST_DECL std::string_view to_string(message_direction direction) noexcept {
    return direction == message_direction::sent ? "sent" : "received";
}

MCP_LOADTEST_DECL std::optional<json> recorded_message::parsed() const {
    json j = json::parse(raw, nullptr, false);
    if (j.is_discarded() || !j.is_structured()) return std::nullopt;
    return j;
}

MCP_LOADTEST_DECL message_kind recorded_message::kind() const {
    const auto j = parsed();
    if (!j || !j->is_object()) return message_kind::other;
    if (j->contains("method")) return j->contains("id") ? message_kind::request : message_kind::notification;
    if (j->contains("error")) return message_kind::error_reply;
    if (j->contains("result") && j->contains("id")) return message_kind::reply;
    return message_kind::other;
}

MCP_LOADTEST_DECL std::string recorded_message::method() const {
    const auto j = parsed();
    if (!j || !j->is_object()) return "";
    const auto it = j->find("method");
    return it != j->end() && it->is_string() ? it->get<std::string>() : "";
}

MCP_LOADTEST_DECL std::optional<json> recorded_message::id() const {
    const auto j = parsed();
    if (!j || !j->is_object()) return std::nullopt;
    const auto it = j->find("id");
    if (it == j->end()) return std::nullopt;
    return *it;
}

MCP_LOADTEST_DECL std::string recorded_message::tool() const {
    const auto j = parsed();
    if (!j || !j->is_object()) return "";
    const auto m = j->find("method");
    const auto params = j->find("params");
    if (m == j->end() || !m->is_string() || params == j->end() || !params->is_object()) return "";
    const char* key = *m == "tools/call" || *m == "prompts/get" ? "name" : *m == "resources/read" ? "uri" : nullptr;
    if (!key) return "";
    const auto v = params->find(key);
    return v != params->end() && v->is_string() ? v->get<std::string>() : "";
}

MCP_LOADTEST_DECL std::size_t recording::message_count() const noexcept {
    std::size_t n = 0;
    for (const auto& s : sessions) n += s.messages.size();
    return n;
}

MCP_LOADTEST_DECL std::size_t recording::message_bytes() const noexcept {
    std::size_t n = 0;
    for (const auto& s : sessions)
        for (const auto& m : s.messages) n += m.raw.size();
    return n;
}

MCP_LOADTEST_DECL bool recording::truncated() const noexcept {
    return std::any_of(sessions.begin(), sessions.end(), [](const recorded_session& s) { return s.dropped_messages > 0; });
}

MCP_LOADTEST_DECL std::string to_jsonl(const recording& r) {
    using namespace detail::recording_impl;
    // Members in a fixed order (nlohmann's objects sort theirs): written by hand.
    std::string out = "{\"mcp_loadtest_recording\":" + std::to_string(recording_format_version) + ",\"created\":" +
                      json_string(iso8601(std::chrono::system_clock::now(), false)) +
                      ",\"sessions\":" + std::to_string(r.sessions.size()) +
                      ",\"messages\":" + std::to_string(r.message_count()) +
                      ",\"truncated\":" + (r.truncated() ? "true" : "false") + "}\n";
    for (const auto& s : r.sessions) {
        const std::string session = std::to_string(s.index);
        out += "{\"session\":" + session + ",\"transport\":" + json_string(s.transport) + ",\"server\":" + json_string(s.server) +
               ",\"protocol_version\":" + json_string(s.protocol_version) + ",\"era\":" + json_string(s.era) +
               ",\"started\":" + json_string(iso8601(s.started, true)) + ",\"started_us\":" +
               std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(s.started.time_since_epoch()).count()) +
               ",\"dropped\":" + std::to_string(s.dropped_messages) + "}\n";
        std::vector<std::size_t> order(s.messages.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return s.messages[a].at < s.messages[b].at; });
        for (const std::size_t i : order) {
            const auto& m = s.messages[i];
            out += "{\"session\":" + session + ",\"dir\":\"" + std::string(to_string(m.direction)) + "\",\"t_us\":" +
                   std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(m.at).count());
            if (writes_verbatim(m.raw)) out += ",\"message\":" + m.raw + "}\n";
            else out += ",\"raw\":" + json_string(m.raw) + "}\n";
        }
    }
    return out;
}

MCP_LOADTEST_DECL recording read_recording(std::string_view jsonl) {
    using namespace detail::recording_impl;
    recording r;
    bool have_header = false;
    std::size_t number = 0;
    std::size_t pos = 0;
    while (pos < jsonl.size()) {
        auto end = jsonl.find('\n', pos);
        if (end == std::string_view::npos) end = jsonl.size();
        std::string_view line = jsonl.substr(pos, end - pos);
        pos = end + 1;
        ++number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty()) continue;
        const json j = json::parse(line, nullptr, false);
        if (j.is_discarded())
            bad_line(number, "not JSON; each line of a recording is one JSON object (was the file cut short or edited?)");
        if (!j.is_object()) bad_line(number, "a JSON " + std::string(j.type_name()) + ", not an object; each line is one object");
        if (!have_header) {
            const auto v = j.find("mcp_loadtest_recording");
            if (v == j.end())
                bad_line(number, "the first line must be the header {\"mcp_loadtest_recording\":1,...}; "
                                 "this is not a recording written by to_jsonl()");
            if (!v->is_number_integer() || v->get<std::int64_t>() < 1)
                bad_line(number, "'mcp_loadtest_recording' must be a positive integer version, not " + v->dump());
            if (v->get<std::int64_t>() > recording_format_version)
                bad_line(number, "the recording has format version " + v->dump() + ", this mcp-loadtest reads up to " +
                                     std::to_string(recording_format_version) +
                                     ": it was written by a newer mcp-loadtest; upgrade mcp-loadtest to read it");
            have_header = true;
            continue;
        }
        if (j.contains("mcp_loadtest_recording")) bad_line(number, "a second header; a recording has one, on line 1");
        const std::uint64_t index = unsigned_member(j, "session", number, "recording");
        if (index == 0 || index > 0xffffffffu) bad_line(number, "'session' must be 1 or more, not " + std::to_string(index));
        const auto session = std::find_if(r.sessions.begin(), r.sessions.end(),
                                          [&](const recorded_session& s) { return s.index == index; });
        if (!j.contains("dir")) {
            if (session != r.sessions.end())
                bad_line(number, "session " + std::to_string(index) + " has a second session line; give each its own number");
            recorded_session s;
            s.index = static_cast<std::uint32_t>(index);
            s.transport = string_member(j, "transport", number);
            s.server = string_member(j, "server", number);
            s.protocol_version = string_member(j, "protocol_version", number);
            s.era = string_member(j, "era", number);
            const auto started = j.find("started_us");
            if (started == j.end()) bad_line(number, "a session line needs \"started_us\" (microseconds since 1970)");
            if (!started->is_number_integer()) bad_line(number, "'started_us' must be an integer, not " + started->dump());
            s.started = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                std::chrono::microseconds(started->get<std::int64_t>())));
            s.dropped_messages = j.contains("dropped") ? unsigned_member(j, "dropped", number, "session") : 0;
            r.sessions.push_back(std::move(s));
            continue;
        }
        if (session == r.sessions.end())
            bad_line(number, "a message of session " + std::to_string(index) +
                                 ", which has no session line before it; put {\"session\":" + std::to_string(index) +
                                 ",...} above its messages");
        recorded_message m;
        const auto& dir = j["dir"];
        if (dir == "sent") m.direction = message_direction::sent;
        else if (dir == "received") m.direction = message_direction::received;
        else bad_line(number, "'dir' must be \"sent\" or \"received\", not " + dir.dump());
        m.at = std::chrono::microseconds(unsigned_member(j, "t_us", number, "message"));
        if (const auto raw = j.find("raw"); raw != j.end()) {
            if (!raw->is_string()) bad_line(number, "'raw' must be a string (the message's bytes), not " + raw->dump());
            m.raw = raw->get<std::string>();
        } else if (const auto msg = j.find("message"); msg != j.end()) {
            m.raw = message_text(line, *msg);
        } else {
            bad_line(number, "a message line needs \"message\" (the JSON message) or \"raw\" (its text as a string)");
        }
        session->messages.push_back(std::move(m));
    }
    if (!have_header) {
        recording_error e("recording: empty; a recording starts with the header line {\"mcp_loadtest_recording\":1,...}");
        e.line = 1;
        throw e;
    }
    std::stable_sort(r.sessions.begin(), r.sessions.end(),
                     [](const recorded_session& a, const recorded_session& b) { return a.index < b.index; });
    for (auto& s : r.sessions)
        std::stable_sort(s.messages.begin(), s.messages.end(),
                         [](const recorded_message& a, const recorded_message& b) { return a.at < b.at; });
    return r;
}

MCP_LOADTEST_DECL void write_recording(const recording& r, const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw std::runtime_error("write_recording: cannot create the directory " + path.parent_path().string() + ": " + ec.message());
    detail::write_file_atomically(path, to_jsonl(r));
}

MCP_LOADTEST_DECL recording read_recording_file(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw recording_error("read_recording_file: cannot open " + path.string());
    std::ostringstream text;
    text << f.rdbuf();
    try {
        return read_recording(text.str());
    } catch (const recording_error& e) {
        recording_error named(path.string() + ": " + e.what());
        named.line = e.line;
        throw named;
    }
}

MCP_LOADTEST_DECL recording import_messages(const std::vector<std::string>& messages, std::string_view server_description) {
    using namespace detail::recording_impl;
    recording r;
    recorded_session s;
    s.index = 1;
    s.transport = "imported";
    s.server = std::string(server_description);
    s.started = std::chrono::system_clock::now();
    struct pending {
        json id;
        message_direction direction;
        bool initialize;
    };
    std::vector<pending> open;  // requests not answered yet, latest last
    std::size_t count = 0;
    const auto add = [&](const json& j, std::string raw) {
        recorded_message m;
        m.at = std::chrono::milliseconds(count++);
        m.raw = std::move(raw);
        const auto method = j.find("method");
        const auto id = j.find("id");
        if (method != j.end()) {
            const std::string name = method->is_string() ? method->get<std::string>() : "";
            m.direction = is_server_method(name) ? message_direction::received : message_direction::sent;
            if (id != j.end()) open.push_back({*id, m.direction, name == "initialize"});
            if (name == "initialize") {
                s.era = "legacy";  // the initialize handshake is the legacy era's
                if (const auto p = j.find("params"); p != j.end() && p->is_object())
                    if (const auto v = p->find("protocolVersion"); v != p->end() && v->is_string())
                        s.protocol_version = v->get<std::string>();
            }
        } else {
            m.direction = message_direction::received;  // a reply to nothing we saw: the server's
            if (id != j.end()) {
                const auto match = std::find_if(open.rbegin(), open.rend(), [&](const pending& p) { return p.id == *id; });
                if (match != open.rend()) {
                    m.direction = match->direction == message_direction::sent ? message_direction::received
                                                                              : message_direction::sent;
                    if (match->initialize)
                        if (const auto res = j.find("result"); res != j.end() && res->is_object())
                            if (const auto v = res->find("protocolVersion"); v != res->end() && v->is_string())
                                s.protocol_version = v->get<std::string>();
                    open.erase(std::next(match).base());
                }
            }
        }
        s.messages.push_back(std::move(m));
    };
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const std::string_view text = trim(messages[i]);
        const json j = json::parse(text, nullptr, false);
        if (j.is_discarded()) bad_element(i + 1, text, "is not JSON");
        if (j.is_object()) {
            add(j, std::string(text));
        } else if (j.is_array()) {
            for (const auto& one : j) {
                if (!one.is_object()) bad_element(i + 1, text, "is an array holding a " + std::string(one.type_name()));
                add(one, one.dump(-1, ' ', false, json::error_handler_t::replace));
            }
        } else {
            bad_element(i + 1, text, "is a JSON " + std::string(j.type_name()) + ", not a message object");
        }
    }
    r.sessions.push_back(std::move(s));
    return r;
}

}  // namespace mcp_loadtest
