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

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/detail/wire/wire_text.hpp>

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

[[nodiscard]] MCP_LOADTEST_DECL bool is_token(std::string_view s) noexcept;

MCP_LOADTEST_DECL void append_field(std::string& out, std::string_view name, std::string_view value);

}  // namespace impl

/// Checks a caller-supplied header once, up front: write_request() copies headers as given, and
/// a CR or LF in a value would split the request.
[[nodiscard]] MCP_LOADTEST_DECL bool valid_field(std::string_view name, std::string_view value, std::string* error = nullptr);

/// Appends a complete request to `out`: request line, Host, the caller's headers, Content-Length
/// (when there is a body, and always for POST, PUT and PATCH), a blank line and the body.
/// `host` is the Host header value (url::host_header(): compute it once per connection).
MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                                     std::span<const field> headers, std::string_view body = {});

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                                     std::initializer_list<field> headers, std::string_view body = {});

/// Convenience form; builds the Host value on each call (one small allocation).
MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, const url& u, std::span<const field> headers,
                                     std::string_view body = {});

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, const url& u, std::initializer_list<field> headers,
                                     std::string_view body = {});

/// A request this client wrote, sent again elsewhere (a redirect): the request line gets
/// `target` and the Host header `host`; header lines whose names are in `drop`
/// (case-insensitive) are removed and `add` (complete "Name: value\r\n" lines) goes right after
/// Host. The body is kept. Returns false, changing nothing, when `request` does not start with a
/// request line and then Host.
MCP_LOADTEST_DECL bool retarget_request(std::string& request, std::string_view target, std::string_view host,
                                        std::span<const std::string_view> drop, std::string_view add);

/// The CONNECT request opening a tunnel to `authority` ("host:port", IPv6 in brackets), with
/// `proxy_authorization` as its Proxy-Authorization value when not empty.
MCP_LOADTEST_DECL void write_connect(std::string& out, std::string_view authority, std::string_view proxy_authorization);

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
    /// The first Content-Type's value, noted while the framing headers are read (a transport
    /// looks it up on every response).
    std::optional<std::string_view> content_type;

    /// First value of the header `name` (case-insensitive).
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string_view> find(std::string_view name) const noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t count(std::string_view name) const noexcept;
    /// True when any `name` header lists `token` (comma-separated, case-insensitive).
    [[nodiscard]] MCP_LOADTEST_DECL bool has_token(std::string_view name, std::string_view token) const noexcept;
};

/// Incremental HTTP/1.x response parser. Usage: for each read, call parse() on the unread
/// bytes, drop step::consumed of them, act on step::kind, and repeat until need_more (which
/// always means all bytes were used); call eof() when the peer closes. 1xx heads other than
/// 101 are skipped. Responses to HEAD requests: call expect_no_body() before their bytes arrive.
class response_parser {
public:
    explicit MCP_LOADTEST_DECL response_parser(limits l = {});
    // head() holds views into this object's buffer: a copy would point into the original.
    response_parser(const response_parser&) = delete;
    response_parser& operator=(const response_parser&) = delete;
    response_parser(response_parser&&) = default;
    response_parser& operator=(response_parser&&) = default;

    [[nodiscard]] MCP_LOADTEST_DECL step parse(std::string_view in);

    /// The peer closed the connection: completes a body delimited by the close (done), reports
    /// a truncated response (error), or a clean end between responses (closed).
    [[nodiscard]] MCP_LOADTEST_DECL step eof();

    /// The next response answers a HEAD request: it has no body whatever its headers say.
    void expect_no_body() noexcept { no_body_next_ = true; }

    /// The next response answers CONNECT: a 2xx head ends like a 101 (event::upgrade, the bytes
    /// after it belong to the tunnel); any other status is an ordinary response with its body.
    void expect_tunnel() noexcept { tunnel_next_ = true; }

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
    MCP_LOADTEST_DECL void reset() noexcept;

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

    MCP_LOADTEST_DECL void begin_message() noexcept;

    MCP_LOADTEST_DECL std::string limit_name() const;

    MCP_LOADTEST_DECL step fail_step(errc code, std::string message, std::size_t consumed);
    MCP_LOADTEST_DECL bool fail(errc code, std::string message);

    // Finds the end of a blank line (LF or CRLF) starting a line at or after `from`, carrying
    // the current line's length and last byte across calls. Returns the index after its LF.
    MCP_LOADTEST_DECL std::size_t find_blank_line(std::string_view in, std::size_t from) noexcept;

    MCP_LOADTEST_DECL step parse_head(std::string_view in);
    // A final response's whole head at the start of `in`, with nothing unusual in it: read in
    // one walk over its lines. Returns the bytes used, or 0 (nothing kept) to leave the head to
    // the general path, which also reports every error.
    MCP_LOADTEST_DECL std::size_t parse_whole_head(std::string_view in);

    // The fixed start of a status line, "HTTP/1.x NNN" and then a space or the line's end, checked
    // byte by byte as it arrives: a peer that does not speak HTTP/1.x (TLS, HTTP/2, SSH) fails on
    // its first wrong byte instead of after a whole head.
    MCP_LOADTEST_DECL bool check_status_line_start();

    MCP_LOADTEST_DECL void bad_status_line(std::string_view block);

    static bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

    MCP_LOADTEST_DECL bool parse_head_block();
    // "HTTP/1.x NNN" and then nothing or a space and the reason (`line` without its CR LF).
    static MCP_LOADTEST_DECL bool status_line_ok(std::string_view line) noexcept;
    MCP_LOADTEST_DECL void take_status_line(std::string_view line) noexcept;
    // A header line `line` (no CR LF, not folded): its field, or false when its name is not a
    // token followed by a colon.
    static MCP_LOADTEST_DECL bool split_field(std::string_view line, field& out) noexcept;
    // From the fields: Content-Type, Content-Length, the framing and keep-alive.
    MCP_LOADTEST_DECL bool read_framing();

    // Content-Length may repeat (as lines or as a list) only with one value (RFC 9110 §8.6).
    MCP_LOADTEST_DECL bool merge_content_length(std::string_view value);

    MCP_LOADTEST_DECL bool begin_body();

    MCP_LOADTEST_DECL bool in_chunk_line() const noexcept;

    static MCP_LOADTEST_DECL int hex_value(char c) noexcept;

    MCP_LOADTEST_DECL void chunk_size_line_done() noexcept;

    // One byte of a chunk-size line or of the CRLF after chunk data.
    MCP_LOADTEST_DECL bool chunk_byte(std::string_view in, std::size_t at);

    limits limits_;
    std::uint64_t body_limit_;
    state state_ = state::idle;
    framing framing_ = framing::none;
    bool keep_alive_ = true;
    bool no_body_next_ = false;
    bool tunnel_next_ = false;
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

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/http1.ipp>
#endif
