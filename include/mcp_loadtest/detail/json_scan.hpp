// Allocation-free JSON-RPC envelope scanning and writing.
//
// The request hot path never builds a JSON DOM: envelopes are appended to the
// output buffer as text, and an incoming line is validated and its top-level
// members located in one pass (roughly 1 ns per byte). The user's result is
// parsed only when asked for (see call_result::result()).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// A [begin, begin+size) slice of a scanned line; size 0 means "absent".
struct span {
    std::uint32_t begin = 0;
    std::uint32_t size = 0;
    [[nodiscard]] bool present() const noexcept { return size != 0; }
    [[nodiscard]] std::string_view in(std::string_view line) const noexcept {
        return line.substr(begin, size);
    }
};

/// Top-level members of one JSON-RPC message.
struct envelope {
    bool valid = false;          // the whole line is syntactically valid JSON
    bool is_object = false;      // the top-level value is an object
    bool jsonrpc_20 = false;     // "jsonrpc":"2.0" present
    bool id_is_integer = false;  // id parsed into id_value
    bool result_is_error_flagged = false;  // result.isError == true
    bool result_is_object = false;
    std::uint64_t id_value = 0;
    span id;      // raw id token (number, string with quotes, or null)
    span method;  // string contents, without quotes (escapes left as written)
    span result;  // raw value
    span error;   // raw value
    span params;  // raw value
    std::size_t error_offset = 0;  // where validation failed, when !valid
};

class envelope_scanner {
public:
    /// Scans `line`. Members seen before a syntax error are still reported
    /// (so a truncated response can still be attributed to its request id).
    static envelope scan(std::string_view line) noexcept {
        envelope env;
        envelope_scanner s{line.data(), line.data() + line.size(), line.data()};
        s.skip_ws();
        if (s.p_ < s.end_ && *s.p_ == '{') {
            env.is_object = true;
            env.valid = s.top_object(env) && (s.skip_ws(), s.p_ == s.end_);
        } else {
            env.valid = s.value(0) && (s.skip_ws(), s.p_ == s.end_);
        }
        if (!env.valid) env.error_offset = static_cast<std::size_t>(s.p_ - s.begin_);
        return env;
    }

private:
    static constexpr int max_depth = 512;

    envelope_scanner(const char* p, const char* end, const char* begin)
        : p_(p), end_(end), begin_(begin) {}

    const char* p_;
    const char* end_;
    const char* begin_;

    span make_span(const char* b, const char* e) const noexcept {
        return span{static_cast<std::uint32_t>(b - begin_), static_cast<std::uint32_t>(e - b)};
    }

    void skip_ws() noexcept {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }

    static bool is_hex(char c) noexcept {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    // On entry *p_ == '"'. Leaves p_ after the closing quote.
    bool string() noexcept {
        ++p_;
        while (p_ < end_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') { ++p_; return true; }
            if (c < 0x20) return false;
            if (c == '\\') {
                if (++p_ >= end_) return false;
                switch (*p_) {
                    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                        ++p_; break;
                    case 'u':
                        if (end_ - p_ < 5 || !is_hex(p_[1]) || !is_hex(p_[2]) || !is_hex(p_[3]) ||
                            !is_hex(p_[4]))
                            return false;
                        p_ += 5; break;
                    default: return false;
                }
                continue;
            }
            // Fast skip of plain bytes.
            ++p_;
        }
        return false;
    }

    bool number() noexcept {
        const char* start = p_;
        if (p_ < end_ && *p_ == '-') ++p_;
        if (p_ >= end_) return false;
        if (*p_ == '0') ++p_;
        else if (*p_ >= '1' && *p_ <= '9') while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        else return false;
        if (p_ < end_ && *p_ == '.') {
            ++p_;
            if (p_ >= end_ || *p_ < '0' || *p_ > '9') return false;
            while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ >= end_ || *p_ < '0' || *p_ > '9') return false;
            while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        return p_ > start;
    }

    bool literal(std::string_view word) noexcept {
        if (static_cast<std::size_t>(end_ - p_) < word.size() ||
            std::memcmp(p_, word.data(), word.size()) != 0)
            return false;
        p_ += word.size();
        return true;
    }

    bool value(int depth) noexcept {
        skip_ws();
        if (p_ >= end_) return false;
        switch (*p_) {
            case '"': return string();
            case '{': return object(depth + 1, nullptr);
            case '[': return array(depth + 1);
            case 't': return literal("true");
            case 'f': return literal("false");
            case 'n': return literal("null");
            default: return number();
        }
    }

    bool array(int depth) noexcept {
        if (depth > max_depth) return false;
        ++p_;
        skip_ws();
        if (p_ < end_ && *p_ == ']') { ++p_; return true; }
        for (;;) {
            if (!value(depth)) return false;
            skip_ws();
            if (p_ >= end_) return false;
            if (*p_ == ',') { ++p_; continue; }
            if (*p_ == ']') { ++p_; return true; }
            return false;
        }
    }

    // Generic object; when `is_error_flag` is non-null, records whether a
    // member "isError" is the literal true (used on the "result" object).
    bool object(int depth, bool* is_error_flag) noexcept {
        if (depth > max_depth) return false;
        ++p_;
        skip_ws();
        if (p_ < end_ && *p_ == '}') { ++p_; return true; }
        for (;;) {
            skip_ws();
            if (p_ >= end_ || *p_ != '"') return false;
            const char* key_begin = p_ + 1;
            if (!string()) return false;
            const std::string_view key(key_begin, static_cast<std::size_t>(p_ - 1 - key_begin));
            skip_ws();
            if (p_ >= end_ || *p_ != ':') return false;
            ++p_;
            skip_ws();
            if (is_error_flag && key == "isError" && literal("true")) {
                *is_error_flag = true;
            } else if (!value(depth)) {
                return false;
            }
            skip_ws();
            if (p_ >= end_) return false;
            if (*p_ == ',') { ++p_; continue; }
            if (*p_ == '}') { ++p_; return true; }
            return false;
        }
    }

    bool top_object(envelope& env) noexcept {
        ++p_;
        skip_ws();
        if (p_ < end_ && *p_ == '}') { ++p_; return true; }
        for (;;) {
            skip_ws();
            if (p_ >= end_ || *p_ != '"') return false;
            const char* key_begin = p_ + 1;
            if (!string()) return false;
            const std::string_view key(key_begin, static_cast<std::size_t>(p_ - 1 - key_begin));
            skip_ws();
            if (p_ >= end_ || *p_ != ':') return false;
            ++p_;
            skip_ws();
            const char* vb = p_;
            if (key == "result" && p_ < end_ && *p_ == '{') {
                env.result_is_object = true;
                if (!object(1, &env.result_is_error_flagged)) return false;
            } else if (!value(1)) {
                return false;
            }
            const span v = make_span(vb, p_);
            if (key == "id") {
                env.id = v;
                if (*vb != '"' && *vb != 'n' && *vb != '-') {
                    std::uint64_t n = 0;
                    auto [ptr, ec] = std::from_chars(vb, p_, n);
                    env.id_is_integer = ec == std::errc{} && ptr == p_;
                    env.id_value = n;
                }
            } else if (key == "method") {
                if (*vb == '"') env.method = make_span(vb + 1, p_ - 1);
            } else if (key == "result") {
                env.result = v;
            } else if (key == "error") {
                env.error = v;
            } else if (key == "params") {
                env.params = v;
            } else if (key == "jsonrpc") {
                env.jsonrpc_20 = std::string_view(vb, static_cast<std::size_t>(p_ - vb)) == "\"2.0\"";
            }
            skip_ws();
            if (p_ >= end_) return false;
            if (*p_ == ',') { ++p_; continue; }
            if (*p_ == '}') { ++p_; return true; }
            return false;
        }
    }
};

/// Appends `s` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
inline void append_json_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                out += "\\u00";
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 0xF]);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

inline void append_uint(std::string& out, std::uint64_t v) {
    char buf[24];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, static_cast<std::size_t>(ptr - buf));
}

/// Writes `{"jsonrpc":"2.0","id":<id>,"method":"<method>"` (object left open).
inline void begin_request(std::string& out, std::uint64_t id, std::string_view method) {
    out += R"({"jsonrpc":"2.0","id":)";
    append_uint(out, id);
    out += R"(,"method":)";
    append_json_string(out, method);
}

}  // namespace mcp_loadtest::detail
