// Definitions of detail/wire/http1.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/http1.hpp>

namespace mcp_loadtest::detail::http1::impl {

MCP_LOADTEST_DECL bool is_token(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (const char c : s)
        if (!token_table.ok[static_cast<unsigned char>(c)]) return false;
    return true;
}

MCP_LOADTEST_DECL void append_field(std::string& out, std::string_view name, std::string_view value) {
    out.append(name);
    out.append(": ", 2);
    out.append(value);
    out.append("\r\n", 2);
}

}  // namespace mcp_loadtest::detail::http1::impl

namespace mcp_loadtest::detail::http1 {

MCP_LOADTEST_DECL bool valid_field(std::string_view name, std::string_view value, std::string* error) {
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

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                                     std::span<const field> headers, std::string_view body) {
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

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, std::string_view host, std::string_view target,
                                     std::initializer_list<field> headers, std::string_view body) {
    write_request(out, method, host, target, std::span<const field>(headers.begin(), headers.size()), body);
}

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, const url& u, std::span<const field> headers,
                                     std::string_view body) {
    write_request(out, method, u.host_header(), u.target, headers, body);
}

MCP_LOADTEST_DECL void write_request(std::string& out, std::string_view method, const url& u, std::initializer_list<field> headers,
                                     std::string_view body) {
    write_request(out, method, u.host_header(), u.target, std::span<const field>(headers.begin(), headers.size()),
                  body);
}

MCP_LOADTEST_DECL std::optional<std::string_view> response_head::find(std::string_view name) const noexcept {
    for (const field& f : fields)
        if (ascii_iequals(f.name, name)) return f.value;
    return std::nullopt;
}

MCP_LOADTEST_DECL std::size_t response_head::count(std::string_view name) const noexcept {
    std::size_t n = 0;
    for (const field& f : fields) n += ascii_iequals(f.name, name) ? 1u : 0u;
    return n;
}

MCP_LOADTEST_DECL bool response_head::has_token(std::string_view name, std::string_view token) const noexcept {
    for (const field& f : fields)
        if (ascii_iequals(f.name, name) && list_has_token(f.value, token)) return true;
    return false;
}

MCP_LOADTEST_DECL response_parser::response_parser(limits l) : limits_(l), body_limit_(l.max_body_bytes) {
    head_buf_.reserve(512);  // on the heap from the start, so a move keeps head()'s views valid
    head_.fields.reserve(16);
}

MCP_LOADTEST_DECL step response_parser::parse(std::string_view in) {
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

MCP_LOADTEST_DECL step response_parser::eof() {
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

MCP_LOADTEST_DECL void response_parser::reset() noexcept {
    state_ = state::idle;
    error_ = {};
    no_body_next_ = false;
    tunnel_next_ = false;
    begin_message();
}

MCP_LOADTEST_DECL void response_parser::begin_message() noexcept {
    head_buf_.clear();
    head_.fields.clear();
    head_.content_type.reset();
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

MCP_LOADTEST_DECL std::string response_parser::limit_name() const {
    return body_limit_ == limits_.max_body_bytes ? "limits.max_body_bytes" : "set_body_limit()";
}

MCP_LOADTEST_DECL step response_parser::fail_step(errc code, std::string message, std::size_t consumed) {
    error_.code = code;
    error_.message = std::move(message);
    state_ = state::failed;
    return {event::error, consumed, {}};
}

MCP_LOADTEST_DECL bool response_parser::fail(errc code, std::string message) {
    fail_step(code, std::move(message), 0);
    return false;
}

MCP_LOADTEST_DECL std::size_t response_parser::find_blank_line(std::string_view in, std::size_t from) noexcept {
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

MCP_LOADTEST_DECL step response_parser::parse_head(std::string_view in) {
    std::size_t pos = 0;
    for (;;) {
        if (head_buf_.empty()) {  // blank lines before a status line are ignored
            while (pos < in.size() && (in[pos] == '\r' || in[pos] == '\n')) ++pos;
            if (pos == in.size()) return {event::need_more, pos, {}};
            if (const std::size_t used = parse_whole_head(std::string_view(in.data() + pos, in.size() - pos))) {
                pos += used;
                if (state_ == state::failed) return {event::error, pos, {}};
                no_body_next_ = false;
                state_ = state::body_begin;
                return {event::headers, pos, {}};
            }
        }
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
            head_.content_type.reset();
            status_checked_ = 0;
            continue;
        }
        no_body_next_ = false;
        const bool tunnel = tunnel_next_ && head_.status >= 200 && head_.status < 300;
        tunnel_next_ = false;
        if (head_.status == 101 || tunnel) {
            state_ = state::upgraded;
            return {event::upgrade, pos, {}};
        }
        state_ = state::body_begin;
        return {event::headers, pos, {}};
    }
}

MCP_LOADTEST_DECL bool response_parser::check_status_line_start() {
    static constexpr std::string_view pattern = "HTTP/1.# ###";  // '#': a digit
    const std::string_view got = std::string_view(head_buf_).substr(0, pattern.size() + 1);
    if (status_checked_ == 0 && got.size() == pattern.size() + 1 && got.starts_with("HTTP/1.") && digit(got[7]) &&
        got[8] == ' ' && digit(got[9]) && digit(got[10]) && digit(got[11]) &&
        (got[12] == ' ' || got[12] == '\r' || got[12] == '\n')) {
        status_checked_ = got.size();  // the whole start at once: the usual case
        return true;
    }
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

MCP_LOADTEST_DECL void response_parser::bad_status_line(std::string_view block) {
    std::string_view line = block.substr(0, block.find('\n'));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string msg = "bad status line " + excerpt(line, 60);
    if (!block.empty() && (block[0] == '\x15' || block[0] == '\x16'))
        msg += " (the server answered with TLS: use an https:// or wss:// URL)";
    else if (line.starts_with("HTTP/2") || line.starts_with("HTTP/3"))
        msg += " (only HTTP/1.x is supported)";
    fail(errc::bad_status_line, std::move(msg));
}

MCP_LOADTEST_DECL std::size_t response_parser::parse_whole_head(std::string_view in) {
    // Where each line ends (its LF), found in one walk that stops at the blank line. More lines
    // than this, a head over the limit or not yet whole: the general path.
    constexpr std::size_t max_lines = 32;
    std::uint32_t ends[max_lines];
    std::size_t lines = 0, at = 0, end = 0;
    const std::size_t limit = in.size() < limits_.max_header_bytes ? in.size() : limits_.max_header_bytes;
    for (;;) {
        const void* hit = std::memchr(in.data() + at, '\n', limit - at);
        if (hit == nullptr) return 0;
        const auto lf = static_cast<std::size_t>(static_cast<const char*>(hit) - in.data());
        if (lf == at || (lf == at + 1 && in[at] == '\r')) {
            end = lf + 1;
            break;
        }
        if (lines == max_lines) return 0;
        ends[lines++] = static_cast<std::uint32_t>(lf);
        at = lf + 1;
    }
    if (lines == 0) return 0;
    std::string_view status(in.data(), ends[0]);
    if (status.back() == '\r') status.remove_suffix(1);
    // Interim responses and 101 are rare: the general path skips or reports them.
    if (!status_line_ok(status) || status[9] < '2' || tunnel_next_) return 0;
    head_buf_.clear();
    head_buf_.append(in.data(), end);
    const char* const base = head_buf_.data();
    for (std::size_t i = 1; i < lines; ++i) {
        const std::size_t from = ends[i - 1] + 1;
        std::size_t to = ends[i];
        if (base[to - 1] == '\r') --to;
        const std::string_view line(base + from, to - from);  // not empty: the blank line ended the walk
        field f;
        if (line.front() == ' ' || line.front() == '\t' || !split_field(line, f)) {  // folding, or an error
            head_buf_.clear();
            head_.fields.clear();
            return 0;
        }
        head_.fields.push_back(f);
    }
    take_status_line(std::string_view(base, status.size()));
    status_checked_ = 13;
    line_len_ = 0;
    last_ = '\n';
    read_framing();  // its errors are the head's first: the lines before it were all sound
    return end;
}

MCP_LOADTEST_DECL bool response_parser::status_line_ok(std::string_view line) noexcept {
    return line.size() >= 12 && line.starts_with("HTTP/1.") && digit(line[7]) && line[8] == ' ' && digit(line[9]) &&
           digit(line[10]) && digit(line[11]) && (line.size() == 12 || line[12] == ' ');
}

MCP_LOADTEST_DECL void response_parser::take_status_line(std::string_view line) noexcept {
    head_.minor_version = line[7] - '0';
    head_.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    head_.reason = line.size() > 13 ? std::string_view(line.data() + 13, line.size() - 13) : std::string_view{};
}

MCP_LOADTEST_DECL bool response_parser::split_field(std::string_view line, field& out) noexcept {
    // The name's bytes are checked as they are passed: the first that is not a token byte must
    // be the colon.
    std::size_t colon = 0;
    for (std::size_t common = 8; common == 8 && colon + 8 <= line.size(); colon += common)
        common = common_name_bytes(load_word<std::uint64_t>(line.data() + colon));
    while (colon < line.size() && impl::token_table.ok[static_cast<unsigned char>(line[colon])]) ++colon;
    if (colon == 0 || colon == line.size() || line[colon] != ':') return false;
    // (No substr: its range check keeps GCC from inlining it in the library's large units.)
    out = {std::string_view(line.data(), colon), trim_ows(std::string_view(line.data() + colon + 1, line.size() - colon - 1))};
    return true;
}

MCP_LOADTEST_DECL bool response_parser::parse_head_block() {
    char* const data = head_buf_.data();
    const std::string_view block = head_buf_;
    std::size_t eol = block.find('\n');
    std::string_view line = block.substr(0, eol);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!status_line_ok(line)) {
        bad_status_line(block);
        return false;
    }
    take_status_line(line);

    const char* value_begin = nullptr;  // of the last field, for obsolete line folding
    for (std::size_t pos = eol + 1;;) {
        eol = block.find('\n', pos);
        if (eol == npos) eol = block.size();
        line = std::string_view(data + pos, eol - pos);
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
            field f;
            if (!split_field(line, f)) {
                const std::size_t colon = line.find(':');
                if (colon == std::string_view::npos)
                    return fail(errc::bad_header, "header line without a colon: " + excerpt(line));
                const std::string_view name = line.substr(0, colon);
                return fail(errc::bad_header,
                            "invalid header name " + excerpt(name) +
                                (name.empty() ? "" : " (no whitespace is allowed before the colon)"));
            }
            value_begin = f.name.data() + f.name.size() + 1;
            head_.fields.push_back(f);
        }
        pos = eol + 1;
    }
    return read_framing();  // after folding has settled the values
}

MCP_LOADTEST_DECL bool response_parser::read_framing() {
    bool te_seen = false, te_chunked = false, conn_close = false, conn_keep_alive = false;
    for (const field& f : head_.fields) {
        if (f.name.size() == 12 && !head_.content_type && ascii_iequals_lower(f.name, "content-type")) {
            head_.content_type = f.value;
        } else if (f.name.size() == 10 && ascii_iequals_lower(f.name, "connection")) {
            conn_close = conn_close || list_has_token(f.value, "close");
            conn_keep_alive = conn_keep_alive || list_has_token(f.value, "keep-alive");
        } else if (f.name.size() == 14 && ascii_iequals_lower(f.name, "content-length")) {
            if (!merge_content_length(f.value)) return false;
        } else if (f.name.size() == 17 && ascii_iequals_lower(f.name, "transfer-encoding")) {
            te_seen = true;
            std::string_view last = f.value.substr(f.value.rfind(',') + 1);
            te_chunked = ascii_iequals_lower(trim_ows(last), "chunked");
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

MCP_LOADTEST_DECL bool response_parser::merge_content_length(std::string_view value) {
    if (!content_length_ && !value.empty() && value.size() <= 19) {
        // One plain number, as nearly every response has it: no list to split, and 19 digits
        // cannot overflow.
        std::uint64_t n = 0;
        std::size_t i = 0;
        while (i < value.size() && digit(value[i])) n = n * 10 + static_cast<std::uint64_t>(value[i++] - '0');
        if (i == value.size()) {
            content_length_ = n;
            return true;
        }
    }
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

MCP_LOADTEST_DECL bool response_parser::begin_body() {
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

MCP_LOADTEST_DECL bool response_parser::in_chunk_line() const noexcept {
    return state_ == state::chunk_size || state_ == state::chunk_ext || state_ == state::chunk_size_lf ||
           state_ == state::chunk_data_cr || state_ == state::chunk_data_lf;
}

MCP_LOADTEST_DECL int response_parser::hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

MCP_LOADTEST_DECL void response_parser::chunk_size_line_done() noexcept {
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

MCP_LOADTEST_DECL bool response_parser::chunk_byte(std::string_view in, std::size_t at) {
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


MCP_LOADTEST_DECL bool retarget_request(std::string& request, std::string_view target, std::string_view host,
                                        std::span<const std::string_view> drop, std::string_view add) {
    const std::string_view in = request;
    const std::size_t line_end = in.find("\r\n");
    if (line_end == std::string_view::npos) return false;
    const std::string_view line = in.substr(0, line_end);
    const std::size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 <= sp1) return false;
    const std::size_t host_at = line_end + 2;
    if (!ascii_iequals_lower(in.substr(host_at, 5), "host:")) return false;
    const std::size_t host_end = in.find("\r\n", host_at);
    const std::size_t head_end = in.find("\r\n\r\n", line_end);
    if (host_end == std::string_view::npos || head_end == std::string_view::npos || host_end > head_end) return false;
    std::string out;
    out.reserve(request.size() + target.size() + add.size() + 16);
    out.append(line.substr(0, sp1 + 1)).append(target).append(line.substr(sp2));
    out.append("\r\nHost: ").append(host).append("\r\n").append(add);
    std::size_t at = host_end + 2;
    while (at < head_end + 2) {
        const std::size_t end = in.find("\r\n", at);
        const std::string_view field_line = in.substr(at, end - at);
        const std::string_view name = field_line.substr(0, field_line.find(':'));
        bool keep = true;
        for (const std::string_view d : drop)
            if (ascii_iequals(name, d)) keep = false;
        if (keep) out.append(field_line).append("\r\n");
        at = end + 2;
    }
    out.append(in.substr(head_end + 2));
    request = std::move(out);
    return true;
}

MCP_LOADTEST_DECL void write_connect(std::string& out, std::string_view authority, std::string_view proxy_authorization) {
    out.append("CONNECT ").append(authority).append(" HTTP/1.1\r\nHost: ").append(authority).append("\r\n");
    if (!proxy_authorization.empty()) out.append("Proxy-Authorization: ").append(proxy_authorization).append("\r\n");
    out.append("\r\n");
}

}  // namespace mcp_loadtest::detail::http1
