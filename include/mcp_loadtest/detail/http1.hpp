// HTTP/1.1, client side, for the Streamable HTTP and legacy HTTP+SSE transports: a request
// writer and an incremental response parser, both I/O-free.
//
// The parser is pull-style: parse() takes whatever bytes arrived, reports one event and says
// how many bytes it used. That lets a transport stop right after a 101 head (the rest of the
// buffer is the WebSocket stream) and hand body bytes on as views into its own read buffer:
// bodies are never buffered here, because an SSE response can stream for hours and a hostile
// server can announce a gigabyte. Only the head (bounded) is copied, into a buffer reused across
// the responses of a keep-alive connection, so steady-state parsing does not allocate.
// Errors are values (errc + message) so a transport can classify them.
#pragma once

#include <mcp_loadtest/detail/url.hpp>
#include <mcp_loadtest/detail/wire_text.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail::http1 {

struct field {
    std::string_view name;
    std::string_view value;
};

namespace impl {

// RFC 9110 tchar.
inline constexpr struct token_table_t {
    bool ok[256]{};
    constexpr token_table_t() {
        for (int c = '0'; c <= '9'; ++c) ok[c] = true;
        for (int c = 'a'; c <= 'z'; ++c) ok[c] = true;
        for (int c = 'A'; c <= 'Z'; ++c) ok[c] = true;
        for (const char c : std::string_view("!#$%&'*+-.^_`|~")) ok[static_cast<unsigned char>(c)] = true;
    }
} token_table{};

[[nodiscard]] inline bool is_token(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (const char c : s)
        if (!token_table.ok[static_cast<unsigned char>(c)]) return false;
    return true;
}

inline void append_field(std::string& out, std::string_view name, std::string_view value) {
    out.append(name);
    out.append(": ", 2);
    out.append(value);
    out.append("\r\n", 2);
}

}  // namespace impl

/// Checks a caller-supplied header once, up front: write_request() copies headers as given, and
/// a CR or LF in a value would split the request.
[[nodiscard]] inline bool valid_field(std::string_view name, std::string_view value, std::string* error = nullptr) {
    if (!impl::is_token(name)) {
        if (error) *error = "invalid HTTP header name " + excerpt(name);
        return false;
    }
    for (const char c : value) {
        if (c == '\r' || c == '\n' || c == '\0') {
            if (error) *error = "the value of HTTP header '" + std::string(name) + "' holds a CR, LF or NUL byte";
            return false;
        }
    }
    return true;
}

/// Appends a complete request to `out`: request line, Host, the caller's headers, Content-Length
/// (when there is a body, and always for POST, PUT and PATCH), a blank line and the body.
/// `host` is the Host header value (url::host_header(): compute it once per connection).
inline void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                          std::span<const field> headers, std::string_view body = {}) {
    const bool with_length = !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
    char digits[24];
    std::size_t ndigits = 0;
    if (with_length)
        ndigits = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, body.size()).ptr - digits);
    std::size_t size = method.size() + target.size() + host.size() + body.size() + 32;
    for (const field& f : headers) size += f.name.size() + f.value.size() + 4;
    if (with_length) size += 18 + ndigits;
    out.reserve(out.size() + size);
    out.append(method);
    out += ' ';
    out.append(target);
    out.append(" HTTP/1.1\r\nHost: ", 17);
    out.append(host);
    out.append("\r\n", 2);
    for (const field& f : headers) impl::append_field(out, f.name, f.value);
    if (with_length) {
        out.append("Content-Length: ", 16);
        out.append(digits, ndigits);
        out.append("\r\n", 2);
    }
    out.append("\r\n", 2);
    out.append(body);
}

inline void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                          std::initializer_list<field> headers, std::string_view body = {}) {
    write_request(out, method, host, target, std::span<const field>(headers.begin(), headers.size()), body);
}

/// Convenience form; builds the Host value on each call (one small allocation).
inline void write_request(std::string& out, std::string_view method, const url& u, std::span<const field> headers,
                          std::string_view body = {}) {
    write_request(out, method, u.host_header(), u.target, headers, body);
}

inline void write_request(std::string& out, std::string_view method, const url& u, std::initializer_list<field> headers,
                          std::string_view body = {}) {
    write_request(out, method, u.host_header(), u.target, std::span<const field>(headers.begin(), headers.size()),
                  body);
}

enum class errc : std::uint8_t {
    none,
    header_too_large,       // status line + headers (or trailers) over limits::max_header_bytes
    body_too_large,         // announced or received body over the body limit
    bad_status_line,        // not "HTTP/1.x NNN reason" (includes a TLS or HTTP/2 peer)
    bad_header,             // no colon, invalid name, misplaced folding
    bad_content_length,     // not a number, or several different values
    bad_transfer_encoding,  // Transfer-Encoding together with Content-Length
    bad_chunk,              // chunk size line, chunk terminator
    unexpected_eof,         // connection closed inside a response
    closed,                 // bytes given after the response stream ended
};

[[nodiscard]] constexpr std::string_view to_string(errc e) noexcept {
    switch (e) {
        case errc::none:
            return "none";
        case errc::header_too_large:
            return "header_too_large";
        case errc::body_too_large:
            return "body_too_large";
        case errc::bad_status_line:
            return "bad_status_line";
        case errc::bad_header:
            return "bad_header";
        case errc::bad_content_length:
            return "bad_content_length";
        case errc::bad_transfer_encoding:
            return "bad_transfer_encoding";
        case errc::bad_chunk:
            return "bad_chunk";
        case errc::unexpected_eof:
            return "unexpected_eof";
        case errc::closed:
            return "closed";
    }
    return "unknown";
}

struct error {
    errc code = errc::none;
    std::string message;
    explicit operator bool() const noexcept { return code != errc::none; }
};

struct limits {
    std::size_t max_header_bytes = 64 * 1024;            // status line + headers; also trailers, separately
    std::uint64_t max_body_bytes = 64ull * 1024 * 1024;  // per response; see set_body_limit()
};

enum class event : std::uint8_t {
    need_more,  // every byte given was used; call again when more arrive
    headers,    // a final (non-1xx) head is complete: see head(), keep_alive()
    body,       // step::body holds the next piece of the body (a view into the input)
    done,       // the response is complete; the next bytes start the next response
    upgrade,    // a 101 head is complete; the bytes after step::consumed belong to the new
                // protocol, and parse() keeps answering upgrade without using any
    closed,     // from eof(): the connection ended cleanly between responses
    error,      // see last_error(); the parser stays failed until reset()
};

struct step {
    event kind = event::need_more;
    std::size_t consumed = 0;  // bytes of the input used by this step
    std::string_view body;     // for event::body
};

/// Status line and headers of a response. The views point into the parser's head buffer: valid
/// until parse() receives the first byte of the next response (or reset()).
struct response_head {
    int status = 0;
    int minor_version = 1;
    std::string_view reason;
    std::vector<field> fields;  // in order, duplicates kept, values trimmed

    /// First value of the header `name` (case-insensitive).
    [[nodiscard]] std::optional<std::string_view> find(std::string_view name) const noexcept {
        for (const field& f : fields)
            if (ascii_iequals(f.name, name)) return f.value;
        return std::nullopt;
    }
    [[nodiscard]] std::size_t count(std::string_view name) const noexcept {
        std::size_t n = 0;
        for (const field& f : fields) n += ascii_iequals(f.name, name) ? 1u : 0u;
        return n;
    }
    /// True when any `name` header lists `token` (comma-separated, case-insensitive).
    [[nodiscard]] bool has_token(std::string_view name, std::string_view token) const noexcept {
        for (const field& f : fields)
            if (ascii_iequals(f.name, name) && list_has_token(f.value, token)) return true;
        return false;
    }
};

/// Incremental HTTP/1.x response parser. Usage: for each read, call parse() on the unread
/// bytes, drop step::consumed of them, act on step::kind, and repeat until need_more (which
/// always means all bytes were used); call eof() when the peer closes. 1xx heads other than
/// 101 are skipped. Responses to HEAD requests: call expect_no_body() before their bytes arrive.
class response_parser {
public:
    explicit response_parser(limits l = {}) : limits_(l), body_limit_(l.max_body_bytes) {
        head_buf_.reserve(512);  // on the heap from the start, so a move keeps head()'s views valid
        head_.fields.reserve(16);
    }
    // head() holds views into this object's buffer: a copy would point into the original.
    response_parser(const response_parser&) = delete;
    response_parser& operator=(const response_parser&) = delete;
    response_parser(response_parser&&) = default;
    response_parser& operator=(response_parser&&) = default;

    [[nodiscard]] step parse(std::string_view in) {
        std::size_t used = 0;
        for (;;) {
            switch (state_) {
                case state::idle:
                    if (used == in.size()) return {event::need_more, used, {}};
                    begin_message();
                    [[fallthrough]];
                case state::head: {
                    const step s = parse_head(in.substr(used));
                    return {s.kind, used + s.consumed, {}};
                }
                case state::body_begin:
                    if (!begin_body()) return {event::error, used, {}};
                    continue;
                case state::length:
                case state::chunk_data: {
                    if (used == in.size()) return {event::need_more, used, {}};
                    const std::size_t n = static_cast<std::size_t>(
                        remaining_ < in.size() - used ? remaining_ : static_cast<std::uint64_t>(in.size() - used));
                    remaining_ -= n;
                    body_bytes_ += n;
                    if (remaining_ == 0) state_ = state_ == state::length ? state::done : state::chunk_data_cr;
                    return {event::body, used + n, in.substr(used, n)};
                }
                case state::chunk_size:
                case state::chunk_ext:
                case state::chunk_size_lf:
                case state::chunk_data_cr:
                case state::chunk_data_lf:
                    while (used < in.size() && in_chunk_line()) {
                        if (!chunk_byte(in, used)) return {event::error, used, {}};
                        ++used;
                    }
                    if (in_chunk_line()) return {event::need_more, used, {}};
                    continue;
                case state::trailers: {
                    const std::size_t end = find_blank_line(in, used);
                    const std::size_t take = (end == npos ? in.size() : end) - used;
                    if (trailer_bytes_ + take > limits_.max_header_bytes)
                        return fail_step(errc::header_too_large,
                                         "the chunked body's trailers exceed " +
                                             std::to_string(limits_.max_header_bytes) +
                                             " bytes (limits.max_header_bytes)",
                                         used);
                    trailer_bytes_ += take;
                    used += take;
                    if (end == npos) return {event::need_more, used, {}};
                    state_ = state::done;
                    continue;
                }
                case state::until_close: {
                    if (used == in.size()) return {event::need_more, used, {}};
                    // The bytes up to the limit are delivered and the first byte past it fails,
                    // so what the caller sees does not depend on how the body was split.
                    const std::uint64_t room = body_limit_ - (body_bytes_ < body_limit_ ? body_bytes_ : body_limit_);
                    if (room == 0)
                        return fail_step(errc::body_too_large,
                                         "the response body (delimited by the connection closing) exceeds " +
                                             std::to_string(body_limit_) + " bytes (" + limit_name() + ")",
                                         used);
                    const std::size_t n =
                        static_cast<std::size_t>(room < in.size() - used ? room : std::uint64_t{in.size() - used});
                    body_bytes_ += n;
                    return {event::body, used + n, in.substr(used, n)};
                }
                case state::done:
                    state_ = state::idle;
                    return {event::done, used, {}};
                case state::upgraded:
                    return {event::upgrade, used, {}};
                case state::closed:
                    if (used == in.size()) return {event::closed, used, {}};
                    return fail_step(errc::closed,
                                     std::to_string(in.size() - used) +
                                         " bytes arrived after the response stream ended: " + excerpt(in.substr(used)),
                                     used);
                case state::failed:
                    return {event::error, used, {}};
            }
        }
    }

    /// The peer closed the connection: completes a body delimited by the close (done), reports
    /// a truncated response (error), or a clean end between responses (closed).
    [[nodiscard]] step eof() {
        switch (state_) {
            case state::idle:
            case state::closed:
            case state::upgraded:
                state_ = state::closed;
                return {event::closed, 0, {}};
            case state::head:
                if (head_buf_.empty()) {
                    state_ = state::closed;
                    return {event::closed, 0, {}};
                }
                return fail_step(errc::unexpected_eof,
                                 "the connection closed inside a response head, after " +
                                     std::to_string(head_buf_.size()) + " bytes: " + excerpt(head_buf_),
                                 0);
            case state::body_begin:
                if (framing_ == framing::none || framing_ == framing::until_close ||
                    (framing_ == framing::length && content_length_ == 0)) {
                    state_ = state::closed;
                    return {event::done, 0, {}};
                }
                break;
            case state::until_close:
            case state::done:
                state_ = state::closed;
                return {event::done, 0, {}};
            case state::failed:
                return {event::error, 0, {}};
            default:
                break;
        }
        if (framing_ == framing::length)
            return fail_step(errc::unexpected_eof,
                             "the connection closed after " + std::to_string(body_bytes_) + " of the " +
                                 std::to_string(content_length_.value_or(0)) +
                                 " body bytes announced by Content-Length",
                             0);
        return fail_step(errc::unexpected_eof,
                         "the connection closed inside a chunked body, after " + std::to_string(body_bytes_) +
                             " body bytes (no terminating zero-size chunk)",
                         0);
    }

    /// The next response answers a HEAD request: it has no body whatever its headers say.
    void expect_no_body() noexcept { no_body_next_ = true; }

    /// Overrides the body limit for the current response only: call it on event::headers (say,
    /// for an SSE stream whose events another parser bounds). The next response gets
    /// limits::max_body_bytes again.
    void set_body_limit(std::uint64_t bytes) noexcept { body_limit_ = bytes; }

    [[nodiscard]] const response_head& head() const noexcept { return head_; }
    [[nodiscard]] int status() const noexcept { return head_.status; }
    /// Whether the connection may carry another request after this response (HTTP/1.1 unless
    /// "Connection: close"; HTTP/1.0 only with "Connection: keep-alive"; never after a body
    /// delimited by the close). Meaningful from event::headers on.
    [[nodiscard]] bool keep_alive() const noexcept { return keep_alive_; }
    [[nodiscard]] bool chunked() const noexcept { return framing_ == framing::chunked; }
    [[nodiscard]] std::optional<std::uint64_t> content_length() const noexcept { return content_length_; }
    /// Body bytes of the current response delivered so far.
    [[nodiscard]] std::uint64_t body_bytes() const noexcept { return body_bytes_; }
    [[nodiscard]] const error& last_error() const noexcept { return error_; }
    [[nodiscard]] bool failed() const noexcept { return state_ == state::failed; }
    [[nodiscard]] const limits& configured_limits() const noexcept { return limits_; }

    /// Back to the initial state, for a new connection; keeps the limits.
    void reset() noexcept {
        state_ = state::idle;
        error_ = {};
        no_body_next_ = false;
        begin_message();
    }

private:
    static constexpr std::size_t npos = std::string_view::npos;
    static constexpr std::size_t max_chunk_ext_bytes = 4096;

    enum class state : std::uint8_t {
        idle,
        head,
        body_begin,
        length,
        chunk_size,
        chunk_ext,
        chunk_size_lf,
        chunk_data,
        chunk_data_cr,
        chunk_data_lf,
        trailers,
        until_close,
        done,
        upgraded,
        closed,
        failed
    };
    enum class framing : std::uint8_t { none, length, chunked, until_close };

    void begin_message() noexcept {
        head_buf_.clear();
        head_.fields.clear();
        head_.status = 0;
        head_.minor_version = 1;
        head_.reason = {};
        line_len_ = 0;
        last_ = '\0';
        status_checked_ = 0;
        content_length_.reset();
        framing_ = framing::none;
        keep_alive_ = true;
        body_limit_ = limits_.max_body_bytes;
        body_bytes_ = 0;
        remaining_ = 0;
        chunk_size_ = 0;
        chunk_digits_ = 0;
        chunk_ext_bytes_ = 0;
        trailer_bytes_ = 0;
        state_ = state::head;
    }

    std::string limit_name() const {
        return body_limit_ == limits_.max_body_bytes ? "limits.max_body_bytes" : "set_body_limit()";
    }

    step fail_step(errc code, std::string message, std::size_t consumed) {
        error_.code = code;
        error_.message = std::move(message);
        state_ = state::failed;
        return {event::error, consumed, {}};
    }
    bool fail(errc code, std::string message) {
        fail_step(code, std::move(message), 0);
        return false;
    }

    // Finds the end of a blank line (LF or CRLF) starting a line at or after `from`, carrying
    // the current line's length and last byte across calls. Returns the index after its LF.
    std::size_t find_blank_line(std::string_view in, std::size_t from) noexcept {
        std::size_t scan = from;
        while (scan < in.size()) {
            const void* hit = std::memchr(in.data() + scan, '\n', in.size() - scan);
            if (hit == nullptr) {
                line_len_ += in.size() - scan;
                last_ = in.back();
                return npos;
            }
            const std::size_t i = static_cast<std::size_t>(static_cast<const char*>(hit) - in.data());
            const std::size_t len = line_len_ + (i - scan);
            const char prev = i > scan ? in[i - 1] : last_;
            line_len_ = 0;
            last_ = '\n';
            if (len == 0 || (len == 1 && prev == '\r')) return i + 1;
            scan = i + 1;
        }
        return npos;
    }

    step parse_head(std::string_view in) {
        std::size_t pos = 0;
        for (;;) {
            if (head_buf_.empty())  // blank lines before a status line are ignored
                while (pos < in.size() && (in[pos] == '\r' || in[pos] == '\n')) ++pos;
            if (pos == in.size()) return {event::need_more, pos, {}};
            const std::size_t end = find_blank_line(in, pos);
            const std::size_t take = (end == npos ? in.size() : end) - pos;
            // Bytes up to the limit are kept and the status line checked on them before the limit
            // is applied: the first problem in byte order is reported, however the input is split.
            const std::size_t room = limits_.max_header_bytes - head_buf_.size();
            head_buf_.append(in.data() + pos, take < room ? take : room);
            if (!check_status_line_start()) return {event::error, pos, {}};
            if (take > room)
                return fail_step(errc::header_too_large,
                                 "the response head exceeds " + std::to_string(limits_.max_header_bytes) +
                                     " bytes (limits.max_header_bytes)" +
                                     (end == npos ? std::string(" and has not ended") : std::string()) +
                                     "; it starts with " + excerpt(head_buf_),
                                 pos);
            pos += take;
            if (end == npos) return {event::need_more, pos, {}};
            if (!parse_head_block()) return {event::error, pos, {}};
            if (head_.status >= 100 && head_.status < 200 && head_.status != 101) {
                head_buf_.clear();  // interim response (100 Continue, 103 Early Hints): skip it
                head_.fields.clear();
                status_checked_ = 0;
                continue;
            }
            no_body_next_ = false;
            if (head_.status == 101) {
                state_ = state::upgraded;
                return {event::upgrade, pos, {}};
            }
            state_ = state::body_begin;
            return {event::headers, pos, {}};
        }
    }

    // The fixed start of a status line, "HTTP/1.x NNN" and then a space or the line's end, checked
    // byte by byte as it arrives: a peer that does not speak HTTP/1.x (TLS, HTTP/2, SSH) fails on
    // its first wrong byte instead of after a whole head.
    bool check_status_line_start() {
        static constexpr std::string_view pattern = "HTTP/1.# ###";  // '#': a digit
        const std::string_view got = std::string_view(head_buf_).substr(0, pattern.size() + 1);
        for (std::size_t i = status_checked_; i < got.size(); ++i) {
            const char c = got[i];
            const bool ok = i == pattern.size() ? c == ' ' || c == '\r' || c == '\n'
                            : pattern[i] == '#' ? digit(c)
                                                : c == pattern[i];
            if (!ok) {
                bad_status_line(head_buf_);
                return false;
            }
        }
        status_checked_ = got.size();
        return true;
    }

    void bad_status_line(std::string_view block) {
        std::string_view line = block.substr(0, block.find('\n'));
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        std::string msg = "bad status line " + excerpt(line, 60);
        if (!block.empty() && (block[0] == '\x15' || block[0] == '\x16'))
            msg += " (the server answered with TLS: use an https:// or wss:// URL)";
        else if (line.starts_with("HTTP/2") || line.starts_with("HTTP/3"))
            msg += " (only HTTP/1.x is supported)";
        fail(errc::bad_status_line, std::move(msg));
    }

    static bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

    bool parse_head_block() {
        char* const data = head_buf_.data();
        const std::string_view block = head_buf_;
        std::size_t eol = block.find('\n');
        std::string_view line = block.substr(0, eol);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.size() < 12 || !line.starts_with("HTTP/1.") || !digit(line[7]) || line[8] != ' ' || !digit(line[9]) ||
            !digit(line[10]) || !digit(line[11]) || (line.size() > 12 && line[12] != ' ')) {
            bad_status_line(block);
            return false;
        }
        head_.minor_version = line[7] - '0';
        head_.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        head_.reason = line.size() > 13 ? line.substr(13) : std::string_view{};

        bool te_seen = false, te_chunked = false, conn_close = false, conn_keep_alive = false;
        const char* value_begin = nullptr;  // of the last field, for obsolete line folding
        for (std::size_t pos = eol + 1;;) {
            eol = block.find('\n', pos);
            line = block.substr(pos, eol - pos);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.empty()) break;
            if (line.front() == ' ' || line.front() == '\t') {
                // obs-fold (RFC 9112 §5.2): a user agent replaces it with spaces. The head buffer
                // is ours, so join in place and keep the value a single view.
                if (head_.fields.empty())
                    return fail(errc::bad_header, "the first header line starts with whitespace: " + excerpt(line));
                data[pos - 1] = ' ';
                if (pos >= 2 && data[pos - 2] == '\r') data[pos - 2] = ' ';
                for (std::size_t i = pos; data[i] == ' ' || data[i] == '\t'; ++i) data[i] = ' ';
                head_.fields.back().value = trim_ows(
                    std::string_view(value_begin, static_cast<std::size_t>(line.data() + line.size() - value_begin)));
            } else {
                const std::size_t colon = line.find(':');
                if (colon == std::string_view::npos)
                    return fail(errc::bad_header, "header line without a colon: " + excerpt(line));
                const std::string_view name = line.substr(0, colon);
                if (!impl::is_token(name))
                    return fail(errc::bad_header,
                                "invalid header name " + excerpt(name) +
                                    (name.empty() ? "" : " (no whitespace is allowed before the colon)"));
                value_begin = line.data() + colon + 1;
                const std::string_view value = trim_ows(line.substr(colon + 1));
                head_.fields.push_back({name, value});
            }
            pos = eol + 1;
        }
        // Framing headers, after folding has settled their values.
        for (const field& f : head_.fields) {
            if (f.name.size() == 10 && ascii_iequals(f.name, "connection")) {
                conn_close = conn_close || list_has_token(f.value, "close");
                conn_keep_alive = conn_keep_alive || list_has_token(f.value, "keep-alive");
            } else if (f.name.size() == 14 && ascii_iequals(f.name, "content-length")) {
                if (!merge_content_length(f.value)) return false;
            } else if (f.name.size() == 17 && ascii_iequals(f.name, "transfer-encoding")) {
                te_seen = true;
                std::string_view last = f.value.substr(f.value.rfind(',') + 1);
                te_chunked = ascii_iequals(trim_ows(last), "chunked");
            }
        }
        if (te_seen && content_length_)
            return fail(errc::bad_transfer_encoding,
                        "the response has both Transfer-Encoding and Content-Length (RFC 9112 §6.3: a sign of "
                        "response splitting or a broken proxy)");
        keep_alive_ = head_.minor_version >= 1 ? !conn_close : (conn_keep_alive && !conn_close);
        const int s = head_.status;
        if (no_body_next_ || (s >= 100 && s < 200) || s == 204 || s == 304)
            framing_ = framing::none;
        else if (te_seen)
            framing_ = te_chunked ? framing::chunked : framing::until_close;
        else if (content_length_)
            framing_ = framing::length;
        else
            framing_ = framing::until_close;
        if (framing_ == framing::until_close) keep_alive_ = false;
        return true;
    }

    // Content-Length may repeat (as lines or as a list) only with one value (RFC 9110 §8.6).
    bool merge_content_length(std::string_view value) {
        for (;;) {
            const std::size_t comma = value.find(',');
            const std::string_view item = trim_ows(value.substr(0, comma));
            std::uint64_t n = 0;
            const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
            if (item.empty() || !digit(item.front()) || ptr != item.data() + item.size())
                return fail(errc::bad_content_length, "invalid Content-Length " + excerpt(value));
            if (ec == std::errc::result_out_of_range)
                return fail(errc::bad_content_length, "Content-Length " + excerpt(item) + " is out of range");
            if (content_length_ && *content_length_ != n)
                return fail(errc::bad_content_length, "conflicting Content-Length values " +
                                                          std::to_string(*content_length_) + " and " +
                                                          std::to_string(n));
            content_length_ = n;
            if (comma == std::string_view::npos) return true;
            value.remove_prefix(comma + 1);
        }
    }

    bool begin_body() {
        switch (framing_) {
            case framing::none:
                state_ = state::done;
                return true;
            case framing::length:
                if (*content_length_ > body_limit_)
                    return fail(errc::body_too_large,
                                "the response announces a body of " + std::to_string(*content_length_) +
                                    " bytes (Content-Length), over the " + std::to_string(body_limit_) +
                                    "-byte limit (" + limit_name() + ")");
                remaining_ = *content_length_;
                state_ = remaining_ == 0 ? state::done : state::length;
                return true;
            case framing::chunked:
                state_ = state::chunk_size;
                return true;
            case framing::until_close:
                state_ = state::until_close;
                return true;
        }
        return true;
    }

    bool in_chunk_line() const noexcept {
        return state_ == state::chunk_size || state_ == state::chunk_ext || state_ == state::chunk_size_lf ||
               state_ == state::chunk_data_cr || state_ == state::chunk_data_lf;
    }

    static int hex_value(char c) noexcept {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    void chunk_size_line_done() noexcept {
        if (chunk_size_ == 0) {
            state_ = state::trailers;
            line_len_ = 0;
            last_ = '\n';
        } else {
            remaining_ = chunk_size_;
            state_ = state::chunk_data;
        }
        chunk_size_ = 0;
        chunk_digits_ = 0;
        chunk_ext_bytes_ = 0;
    }

    // One byte of a chunk-size line or of the CRLF after chunk data.
    bool chunk_byte(std::string_view in, std::size_t at) {
        const char c = in[at];
        switch (state_) {
            case state::chunk_size: {
                const int v = hex_value(c);
                if (v >= 0) {
                    if (chunk_digits_ == 16)
                        return fail(errc::bad_chunk, "chunk size has more than 16 hex digits: " +
                                                         excerpt(in.substr(at >= 16 ? at - 16 : 0, 24)));
                    chunk_size_ = chunk_size_ * 16 + static_cast<std::uint64_t>(v);
                    ++chunk_digits_;
                    if (chunk_size_ > body_limit_ - (body_bytes_ < body_limit_ ? body_bytes_ : body_limit_))
                        return fail(errc::body_too_large, "a chunk of at least " + std::to_string(chunk_size_) +
                                                              " bytes would bring the body to " +
                                                              std::to_string(body_bytes_ + chunk_size_) +
                                                              " bytes, over the " + std::to_string(body_limit_) +
                                                              "-byte limit (" + limit_name() + ")");
                    return true;
                }
                if (chunk_digits_ == 0)
                    return fail(errc::bad_chunk,
                                "a chunk size line does not start with a hex digit: " + excerpt(in.substr(at, 24)));
                if (c == ';' || c == ' ' || c == '\t')
                    state_ = state::chunk_ext;
                else if (c == '\r')
                    state_ = state::chunk_size_lf;
                else if (c == '\n')
                    chunk_size_line_done();
                else
                    return fail(errc::bad_chunk, "bad chunk size line at " + excerpt(in.substr(at, 24)));
                return true;
            }
            case state::chunk_ext:  // extensions (RFC 9112 §7.1.1) carry nothing we use
                if (c == '\n')
                    chunk_size_line_done();
                else if (++chunk_ext_bytes_ > max_chunk_ext_bytes)
                    return fail(errc::bad_chunk,
                                "chunk extensions longer than " + std::to_string(max_chunk_ext_bytes) + " bytes");
                return true;
            case state::chunk_size_lf:
                if (c != '\n')
                    return fail(errc::bad_chunk, "CR without LF after a chunk size: " + excerpt(in.substr(at, 24)));
                chunk_size_line_done();
                return true;
            case state::chunk_data_cr:
                if (c == '\r')
                    state_ = state::chunk_data_lf;
                else if (c == '\n')
                    state_ = state::chunk_size;
                else
                    return fail(errc::bad_chunk,
                                "chunk data is not followed by CRLF (is the chunk longer than its size?): " +
                                    excerpt(in.substr(at, 24)));
                return true;
            case state::chunk_data_lf:
                if (c != '\n')
                    return fail(errc::bad_chunk, "CR without LF after chunk data: " + excerpt(in.substr(at, 24)));
                state_ = state::chunk_size;
                return true;
            default:
                return true;
        }
    }

    limits limits_;
    std::uint64_t body_limit_;
    state state_ = state::idle;
    framing framing_ = framing::none;
    bool keep_alive_ = true;
    bool no_body_next_ = false;
    std::size_t status_checked_ = 0;  // bytes of the status line's fixed start found valid
    char last_ = '\0';
    std::size_t line_len_ = 0;
    std::string head_buf_;
    response_head head_;
    std::optional<std::uint64_t> content_length_;
    std::uint64_t body_bytes_ = 0;
    std::uint64_t remaining_ = 0;
    std::uint64_t chunk_size_ = 0;
    std::size_t chunk_digits_ = 0;
    std::size_t chunk_ext_bytes_ = 0;
    std::size_t trailer_bytes_ = 0;
    error error_;
};

}  // namespace mcp_loadtest::detail::http1
