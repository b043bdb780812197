// Allocation-free JSON-RPC envelope scanning and writing.
//
// The request hot path never builds a JSON DOM: envelopes are appended to the
// output buffer as text, and an incoming line is validated and its top-level
// members located in one pass (roughly 1 ns per byte). The user's result is
// parsed only when asked for (see call_result::result()).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp_loadtest::detail {

/// True for the bytes a JSON string cannot hold as they are: '"', '\\' and controls.
inline constexpr struct json_escape_table_t {
    bool needs[256]{};
    constexpr json_escape_table_t() {
        for (int c = 0; c < 0x20; ++c) needs[c] = true;
        needs[static_cast<unsigned char>('"')] = true;
        needs[static_cast<unsigned char>('\\')] = true;
    }
} json_escape_table{};

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

#if defined(__GNUC__)
#define MCP_LOADTEST_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define MCP_LOADTEST_ALWAYS_INLINE inline
#endif

class envelope_scanner {
public:
    /// Scans `line`. Members seen before a syntax error are still reported
    /// (so a truncated response can still be attributed to its request id).
    static envelope scan(std::string_view line) noexcept {
        envelope env;
        const char* const begin = line.data();
        const char* const end = begin + line.size();
        const char* fail = end;
        const char* p = skip_ws(begin, end);
        if (p < end && *p == '{') {
            env.is_object = true;
            p = top_object(p, end, begin, env, fail);
        } else {
            p = skip_value(p, end, 0, fail);
        }
        if (p) {
            p = skip_ws(p, end);
            if (p != end) fail = p;
        }
        env.valid = p == end;
        if (!env.valid) env.error_offset = static_cast<std::size_t>(fail - begin);
        return env;
    }

private:
    static constexpr int max_depth = 512;

    // Everything works on local pointers passed by value: a loop over a
    // member pointer would reload and store it on every byte (a char load may
    // alias it). Leaves are forced inline; only containers loop.

    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_ws(const char* p, const char* e) noexcept {
        // Compact JSON has no whitespace: one comparison in the common case.
        while (p < e && static_cast<unsigned char>(*p) <= ' ' &&
               (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            ++p;
        return p;
    }

    template <std::size_t N>
    MCP_LOADTEST_ALWAYS_INLINE static bool is(std::string_view key, const char (&word)[N]) noexcept {
        return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
    }

    static bool is_hex(char c) noexcept {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    // The first '"', '\\' or control character in [p, e), or e. Sixteen (SSE2)
    // or eight (SWAR) bytes per step: string bytes are most of a real reply.
    // SWAR: in each of the three has-zero tests only bytes above a genuine hit
    // can be false hits, so the lowest flagged byte is always a real one.
    MCP_LOADTEST_ALWAYS_INLINE static const char* find_special(const char* p, const char* e) noexcept {
#if defined(__SSE2__)
        // Sixteen bytes per step where SSE2 exists (every x86-64).
        const __m128i quote = _mm_set1_epi8('"');
        const __m128i backslash = _mm_set1_epi8('\\');
        const __m128i last_control = _mm_set1_epi8(0x1f);
        while (e - p >= 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control);  // v <= 0x1f
            const int hits = _mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), control));
            if (hits != 0) return p + std::countr_zero(static_cast<unsigned>(hits));
            p += 16;
        }
#endif
        if constexpr (std::endian::native == std::endian::little) {
            constexpr std::uint64_t ones = 0x0101010101010101ULL;
            constexpr std::uint64_t highs = 0x8080808080808080ULL;
            while (e - p >= 8) {
                std::uint64_t w;
                std::memcpy(&w, p, 8);
                const std::uint64_t q = w ^ (ones * '"');
                const std::uint64_t b = w ^ (ones * '\\');
                const std::uint64_t found = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
                if (found != 0) return p + std::countr_zero(found) / 8;
                p += 8;
            }
        }
        while (p < e && !json_escape_table.needs[static_cast<unsigned char>(*p)]) ++p;
        return p;
    }

    // On entry *p == '"'. Returns the position after the closing quote, or
    // nullptr with `fail` set.
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_string(const char* p, const char* e,
                                                              const char*& fail) noexcept {
        ++p;
        for (;;) {
            p = find_special(p, e);
            if (p >= e) break;
            if (*p == '"') return p + 1;
            if (*p != '\\' || ++p >= e) break;  // a control character, or a trailing backslash
            switch (*p) {
                case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                    ++p;
                    continue;
                case 'u':
                    if (e - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4])) break;
                    p += 5;
                    continue;
                default: break;
            }
            break;
        }
        fail = p;
        return nullptr;
    }

    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_number(const char* p, const char* e,
                                                              const char*& fail) noexcept {
        const auto digit = [](char c) { return c >= '0' && c <= '9'; };
        if (p < e && *p == '-') ++p;
        if (p >= e) return fail = p, nullptr;
        if (*p == '0') ++p;
        else if (*p >= '1' && *p <= '9') while (p < e && digit(*p)) ++p;
        else return fail = p, nullptr;
        if (p < e && *p == '.') {
            ++p;
            if (p >= e || !digit(*p)) return fail = p, nullptr;
            while (p < e && digit(*p)) ++p;
        }
        if (p < e && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < e && (*p == '+' || *p == '-')) ++p;
            if (p >= e || !digit(*p)) return fail = p, nullptr;
            while (p < e && digit(*p)) ++p;
        }
        return p;
    }

    template <std::size_t N>
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_literal(const char* p, const char* e, const char (&word)[N],
                                                               const char*& fail) noexcept {
        if (static_cast<std::size_t>(e - p) < N - 1 || std::memcmp(p, word, N - 1) != 0) return fail = p, nullptr;
        return p + (N - 1);
    }

    // At a member's opening quote: skips `"key" :` and the whitespace after it.
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_key(const char* p, const char* e, std::string_view& key,
                                                           const char*& fail) noexcept {
        if (p >= e || *p != '"') return fail = p, nullptr;
        const char* kb = p + 1;
        if (!(p = skip_string(p, e, fail))) return nullptr;
        key = std::string_view(kb, static_cast<std::size_t>(p - 1 - kb));
        p = skip_ws(p, e);
        if (p >= e || *p != ':') return fail = p, nullptr;
        return skip_ws(p + 1, e);
    }

    // Validates one value at p (whitespace already skipped) whose container
    // sits at `depth`. Iterative: nesting costs a bit, not a stack frame.
    static const char* skip_value(const char* p, const char* e, int depth, const char*& fail) noexcept {
        std::uint64_t is_object[max_depth / 64 + 1] = {};  // per open container: object (1) or array (0)
        int open = 0;
        std::string_view key;
        for (;;) {
            if (p >= e) return fail = p, nullptr;
            switch (*p) {
                case '"': p = skip_string(p, e, fail); break;
                case 't': p = skip_literal(p, e, "true", fail); break;
                case 'f': p = skip_literal(p, e, "false", fail); break;
                case 'n': p = skip_literal(p, e, "null", fail); break;
                case '{':
                case '[': {
                    const bool obj = *p == '{';
                    if (depth + open + 1 > max_depth) return fail = p, nullptr;
                    if (obj) is_object[open / 64] |= std::uint64_t{1} << (open % 64);
                    else is_object[open / 64] &= ~(std::uint64_t{1} << (open % 64));
                    ++open;
                    p = skip_ws(p + 1, e);
                    if (p < e && *p == (obj ? '}' : ']')) {
                        ++p;
                        --open;
                        break;
                    }
                    if (obj && !(p = skip_key(p, e, key, fail))) return nullptr;
                    continue;  // the first element or member value
                }
                default: p = skip_number(p, e, fail); break;
            }
            if (!p) return nullptr;
            // After a value: commas and closing brackets.
            for (;;) {
                if (open == 0) return p;
                p = skip_ws(p, e);
                if (p >= e) return fail = p, nullptr;
                const bool obj = (is_object[(open - 1) / 64] >> ((open - 1) % 64)) & 1;
                if (*p == ',') {
                    p = skip_ws(p + 1, e);
                    if (obj && !(p = skip_key(p, e, key, fail))) return nullptr;
                    break;  // the next value
                }
                if (*p != (obj ? '}' : ']')) return fail = p, nullptr;
                ++p;
                --open;
            }
        }
    }

    // The "result" object: its members, noting whether "isError" is the literal true.
    static const char* result_object(const char* p, const char* e, bool& is_error, const char*& fail) noexcept {
        p = skip_ws(p + 1, e);
        if (p < e && *p == '}') return p + 1;
        std::string_view key;
        for (;;) {
            if (!(p = skip_key(p, e, key, fail))) return nullptr;
            if (is(key, "isError") && static_cast<std::size_t>(e - p) >= 4 && std::memcmp(p, "true", 4) == 0) {
                is_error = true;
                p += 4;
            } else if (!(p = skip_value(p, e, 1, fail))) {
                return nullptr;
            }
            p = skip_ws(p, e);
            if (p >= e) return fail = p, nullptr;
            if (*p == ',') {
                p = skip_ws(p + 1, e);
                continue;
            }
            if (*p == '}') return p + 1;
            return fail = p, nullptr;
        }
    }

    // A non-negative integer id that fits 64 bits (validated as a number already).
    MCP_LOADTEST_ALWAYS_INLINE static bool parse_id(const char* b, const char* e, std::uint64_t& out) noexcept {
        std::uint64_t n = 0;
        for (const char* p = b; p < e; ++p) {
            const auto digit = static_cast<unsigned>(*p - '0');
            if (digit > 9) return false;  // a fraction or an exponent
            if (n > (UINT64_MAX - digit) / 10) return false;
            n = n * 10 + digit;
        }
        out = n;
        return true;
    }

    static const char* top_object(const char* p, const char* e, const char* begin, envelope& env,
                                  const char*& fail) noexcept {
        const auto make_span = [begin](const char* b, const char* end) {
            return span{static_cast<std::uint32_t>(b - begin), static_cast<std::uint32_t>(end - b)};
        };
        p = skip_ws(p + 1, e);
        if (p < e && *p == '}') return p + 1;
        std::string_view key;
        for (;;) {
            if (!(p = skip_key(p, e, key, fail))) return nullptr;
            const char* vb = p;
            if (is(key, "result") && p < e && *p == '{') {
                env.result_is_object = true;
                if (!(p = result_object(p, e, env.result_is_error_flagged, fail))) return nullptr;
            } else if (!(p = skip_value(p, e, 1, fail))) {
                return nullptr;
            }
            const span v = make_span(vb, p);
            switch (key.size()) {
                case 2:
                    if (is(key, "id")) {
                        env.id = v;
                        if (*vb >= '0' && *vb <= '9') env.id_is_integer = parse_id(vb, p, env.id_value);
                    }
                    break;
                case 5:
                    if (is(key, "error")) env.error = v;
                    break;
                case 6:
                    if (is(key, "result")) env.result = v;
                    else if (is(key, "method")) {
                        if (*vb == '"') env.method = make_span(vb + 1, p - 1);
                    } else if (is(key, "params")) env.params = v;
                    break;
                case 7:
                    if (is(key, "jsonrpc"))
                        env.jsonrpc_20 = is(std::string_view(vb, static_cast<std::size_t>(p - vb)), "\"2.0\"");
                    break;
                default: break;
            }
            p = skip_ws(p, e);
            if (p >= e) return fail = p, nullptr;
            if (*p == ',') {
                p = skip_ws(p + 1, e);
                continue;
            }
            if (*p == '}') return p + 1;
            return fail = p, nullptr;
        }
    }
};


/// Appends `s` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
inline void append_json_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::size_t first = 0;
    while (first < s.size() && !json_escape_table.needs[static_cast<unsigned char>(s[first])]) ++first;
    if (first == s.size()) {  // nothing to escape: the common case
        const std::size_t at = out.size();
        out.resize(at + s.size() + 2);
        char* d = out.data() + at;
        d[0] = '"';
        std::memcpy(d + 1, s.data(), s.size());
        d[s.size() + 1] = '"';
        return;
    }
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
    // Backwards by constant division: a third of std::to_chars' instructions
    // for the short ids of the request path.
    char buf[20];
    char* const end = buf + sizeof buf;
    char* p = end;
    do {
        *--p = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    out.append(p, static_cast<std::size_t>(end - p));
}

/// Writes `{"jsonrpc":"2.0","id":<id>,"method":"<method>"` (object left open).
inline void begin_request(std::string& out, std::uint64_t id, std::string_view method) {
    using namespace std::string_view_literals;
    out += R"({"jsonrpc":"2.0","id":)"sv;
    append_uint(out, id);
    out += R"(,"method":)"sv;
    append_json_string(out, method);
}

}  // namespace mcp_loadtest::detail
