// Allocation-free JSON-RPC envelope scanning (the writing half is
// jsonrpc_writer.hpp).
//
// The reply path never builds a JSON DOM: an incoming line is validated and
// its top-level members located in one pass (roughly 1 ns per byte). The
// user's result is parsed only when asked for (see call_result::result()), so
// the scanner accepts exactly what that parser (nlohmann::json) accepts: UTF-8
// is validated per RFC 3629 and UTF-16 surrogate escapes must pair up.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/json_chars.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

// Strings are searched 16 bytes per step with SSE2 (every x86-64), else 8 with
// portable SWAR code; MCP_LOADTEST_NO_SIMD selects the portable code anywhere
// (one of the fuzzing harnesses runs it).
#if defined(__SSE2__) && !defined(MCP_LOADTEST_NO_SIMD)
#define MCP_LOADTEST_DETAIL_SCAN_SSE2 1
#include <emmintrin.h>
#endif

namespace mcp_loadtest::detail {

/// Bytes a string scan stops at: the escape table's, and non-ASCII (checked as UTF-8).
inline constexpr struct json_string_stop_table_t {
    bool stop[256]{};
    constexpr json_string_stop_table_t() {
        for (int c = 0; c < 256; ++c) stop[c] = c >= 0x80 || json_escape_table.needs[c];
    }
} json_string_stop_table{};

/// Why a line failed validation.
enum class scan_failure : std::uint8_t {
    none,
    syntax,              ///< not JSON (includes a line cut short)
    invalid_utf8,        ///< a byte sequence that is not UTF-8 (RFC 3629)
    unpaired_surrogate,  ///< a \uD800..\uDFFF escape without its other half
};

/// A [begin, begin+size) slice of a scanned line; size 0 means "absent".
struct span {
    std::uint32_t begin = 0;
    std::uint32_t size = 0;
    [[nodiscard]] bool present() const noexcept { return size != 0; }
    [[nodiscard]] std::string_view in(std::string_view line) const noexcept {
        return line.substr(begin, size);
    }
    friend bool operator==(const span&, const span&) = default;
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
    /// A member the envelope is read from ("id", "result", "error", "method",
    /// "params", "jsonrpc", or "result.isError") given twice, else nullptr.
    /// Parsers disagree on which one counts (this scanner keeps the first,
    /// nlohmann::json the last), so such a message must not be acted on.
    const char* duplicate = nullptr;
    std::uint32_t duplicate_offset = 0;  // where its second key starts
    scan_failure failure = scan_failure::none;  // why, when !valid
    std::size_t error_offset = 0;  // where validation failed, when !valid
    /// Every field; `duplicate` by address (the names are the scanner's constants).
    friend bool operator==(const envelope&, const envelope&) = default;
};

/// envelope::duplicate for a result that says "isError" twice (one address, whichever path saw it).
inline constexpr char result_is_error_name[] = "result.isError";

class envelope_scanner {
public:
    /// Scans `line`. Members seen before a syntax error are still reported
    /// (so a truncated response can still be attributed to its request id).
    /// Bad text inside a string (invalid UTF-8, an unpaired surrogate escape)
    /// does not stop the scan: every member is located and the line is invalid.
    MCP_LOADTEST_DECL static envelope scan(std::string_view line) noexcept;

    /// scan() without its fast path for valid objects: every line read as an
    /// invalid one is. scan() must always return the same; tests and the
    /// fuzzing harness check that it does.
    MCP_LOADTEST_DECL static envelope scan_exact(std::string_view line) noexcept;

    /// What a failure is, in a few words.
    [[nodiscard]] MCP_LOADTEST_DECL static const char* describe(scan_failure f) noexcept;

private:
    static constexpr int max_depth = 512;

    MCP_LOADTEST_ALWAYS_INLINE static envelope scan_line(std::string_view line, bool fast) noexcept;

    // scan() on [begin, end), which has at least 16 bytes before end (SSE2);
    // `fast`: try the fast path first.
    MCP_LOADTEST_DECL static envelope scan_text(const char* begin, const char* end, bool fast) noexcept;

    // Everything works on local pointers passed by value: a loop over a
    // member pointer would reload and store it on every byte (a char load may
    // alias it). Leaves are forced inline; only containers loop.

    MCP_LOADTEST_ALWAYS_INLINE static bool is_ws(char c) noexcept {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    // Compact JSON has no whitespace, so most callers test for the byte they
    // expect first and come here only when it is not there.
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_ws(const char* p, const char* e) noexcept {
        while (p < e && static_cast<unsigned char>(*p) <= ' ' && is_ws(*p)) ++p;
        return p;
    }

    template <std::size_t N>
    MCP_LOADTEST_ALWAYS_INLINE static bool is(std::string_view key, const char (&word)[N]) noexcept {
        return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
    }

    MCP_LOADTEST_DECL static bool is_hex(char c) noexcept;

    // The first '"', '\\', control or non-ASCII byte in [p, e), or e. Sixteen
    // (SSE2) or eight (SWAR) bytes per step: string bytes are most of a real
    // reply. Controls and non-ASCII are one test: as signed bytes, both are
    // below ' ' (0x80..0xff are negative), so UTF-8 checking costs ASCII nothing.
    // SWAR: in each of the three tests only bytes above a genuine hit can be
    // false hits (a borrow), so the lowest flagged byte is always a real one.
    // SSE2 precondition: the 16 bytes before e are readable (scan() makes sure).
    MCP_LOADTEST_ALWAYS_INLINE static const char* find_special(const char* p, const char* e) noexcept {
#if defined(MCP_LOADTEST_DETAIL_SCAN_SSE2)
        const auto special = [](const char* at) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
            const __m128i control_or_high = _mm_cmpgt_epi8(_mm_set1_epi8(' '), v);  // signed: < 0x20 or >= 0x80
            return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                control_or_high)));
        };
        while (e - p >= 16) {
            if (const unsigned hits = special(p); hits != 0) return p + std::countr_zero(hits);
            p += 16;
        }
        if (p == e) return e;
        // Fewer than 16 left (every string near the end of a reply): the 16 bytes
        // that end at e, shifted so that bit 0 is p's. Replaces a byte loop.
        const unsigned hits = special(e - 16) >> (16 - (e - p));
        return hits != 0 ? p + std::countr_zero(hits) : e;
#else
        if constexpr (std::endian::native == std::endian::little) {
            constexpr std::uint64_t ones = 0x0101010101010101ULL;
            constexpr std::uint64_t highs = 0x8080808080808080ULL;
            while (e - p >= 8) {
                std::uint64_t w;
                std::memcpy(&w, p, 8);
                const std::uint64_t q = w ^ (ones * '"');
                const std::uint64_t b = w ^ (ones * '\\');
                // Top bit of (w - 0x20) | w: below 0x20 (wrapped) or 0x80 and up.
                const std::uint64_t found = (((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w) & highs;
                if (found != 0) return p + std::countr_zero(found) / 8;
                p += 8;
            }
        }
        while (p < e && !json_string_stop_table.stop[static_cast<unsigned char>(*p)]) ++p;
        return p;
#endif
    }

    // The length of the UTF-8 sequence at p (lead byte >= 0x80), or 0 when it
    // is not one RFC 3629 allows: overlongs, surrogates, above U+10FFFF, cut short.
    MCP_LOADTEST_ALWAYS_INLINE static std::size_t utf8_length(const char* p, const char* e) noexcept {
        const auto* s = reinterpret_cast<const unsigned char*>(p);
        const unsigned c = s[0];
        const std::size_t n = utf8_lead_table.length[c];
        if (n == 0 || static_cast<std::size_t>(e - p) < n) return 0;
        if (static_cast<unsigned>(s[1] - utf8_lead_table.lo[c]) > static_cast<unsigned>(utf8_lead_table.hi[c] - utf8_lead_table.lo[c]))
            return 0;
        if (n >= 3 && (s[2] & 0xC0) != 0x80) return 0;
        if (n == 4 && (s[3] & 0xC0) != 0x80) return 0;
        return n;
    }

    // At a non-ASCII byte in a string: skips the run of multibyte characters.
    // A bad sequence is noted in `fail` (if nothing was) and skipped a byte at a
    // time; the scan goes on, as the structure around it is still sound. Kept
    // out of line: ASCII strings never come here.
    MCP_LOADTEST_NOINLINE static const char* skip_utf8(const char* p, const char* e, const char*& fail) noexcept {
        do {
            const std::size_t n = utf8_length(p, e);
            if (n == 0 && !fail) fail = p;
            p += n == 0 ? 1 : n;
        } while (p < e && static_cast<unsigned char>(*p) >= 0x80);
        return p;
    }

    MCP_LOADTEST_DECL static unsigned hex4(const char* p) noexcept;

    // At a valid "\\uXXXX" escape of a surrogate (p at the backslash): skips
    // it, and its low half when it is a high surrogate. An unpaired one is
    // noted in `fail` (if nothing was), as nlohmann::json rejects it; the scan
    // goes on.
    MCP_LOADTEST_NOINLINE static const char* skip_surrogate_escape(const char* p, const char* e,
                                                                   const char*& fail) noexcept {
        if (hex4(p + 2) <= 0xDBFF && e - p >= 12 && p[6] == '\\' && p[7] == 'u' && is_hex(p[8]) && is_hex(p[9]) &&
            is_hex(p[10]) && is_hex(p[11])) {
            const unsigned low = hex4(p + 8);
            if (low >= 0xDC00 && low <= 0xDFFF) return p + 12;
        }
        if (!fail) fail = p;
        return p + 6;
    }

    // On entry *p == '"'. Returns the position after the closing quote, or
    // nullptr with `fail` set. Bad text inside sets `fail` but is not fatal.
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_string(const char* p, const char* e,
                                                              const char*& fail) noexcept {
        ++p;
        for (;;) {
            p = find_special(p, e);
            if (p >= e) break;
            if (*p == '"') return p + 1;
            if (static_cast<unsigned char>(*p) >= 0x80) {
                p = skip_utf8(p, e, fail);
                continue;
            }
            if (*p != '\\' || ++p >= e) break;  // a control character, or a trailing backslash
            switch (*p) {
                case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                    ++p;
                    continue;
                case 'u':
                    if (e - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4])) break;
                    // D800..DFFF: 'd' then 8..f (every hex digit from '8' up is >= '8').
                    if ((p[1] | 0x20) == 'd' && p[2] >= '8') p = skip_surrogate_escape(p - 1, e, fail);
                    else p += 5;
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

    // Where a member is due (after '{' or ','): skips whitespace and `"key" :`.
    // Whitespace after the colon is left to the value's reader.
    MCP_LOADTEST_ALWAYS_INLINE static const char* skip_key(const char* p, const char* e, std::string_view& key,
                                                           const char*& fail) noexcept {
        if (p >= e || *p != '"') [[unlikely]] {
            p = skip_ws(p, e);
            if (p >= e || *p != '"') return fail = p, nullptr;
        }
        const char* kb = p + 1;
        if (!(p = skip_string(p, e, fail))) return nullptr;
        key = std::string_view(kb, static_cast<std::size_t>(p - 1 - kb));
        if (p >= e || *p != ':') [[unlikely]] {
            p = skip_ws(p, e);
            if (p >= e || *p != ':') return fail = p, nullptr;
        }
        return p + 1;
    }

    // After a member's value: past the ',' that says another member follows
    // (`more`), or past the object's '}'.
    MCP_LOADTEST_ALWAYS_INLINE static const char* after_member(const char* p, const char* e, bool& more,
                                                               const char*& fail) noexcept {
        for (;;) {
            if (p >= e) return fail = p, nullptr;
            if (*p == ',') return more = true, p + 1;
            if (*p == '}') return more = false, p + 1;
            if (!is_ws(*p)) return fail = p, nullptr;
            p = skip_ws(p, e);
        }
    }

    // A key written with escapes ("\\u0069d"), read as a parser reads it when
    // it may be one of the names located here (ASCII, at most 7 characters);
    // else the key as written, which matches none of them. Without this,
    // {"id":5,"\\u0069d":"x"} would hide its second id from the scanner.
    // Only keys that match no name as written and hold a backslash come here.
    MCP_LOADTEST_NOINLINE static std::string_view unescape_name(std::string_view key, char (&out)[8]) noexcept {
        std::size_t n = 0;
        for (std::size_t i = 0; i < key.size(); ++i) {
            char c = key[i];
            if (c == '\\') {  // well-formed: the string was validated
                if (key[i + 1] != 'u') return key;  // '"', '\\', '/' or a control: in no name
                const unsigned v = hex4(key.data() + i + 2);
                if (v >= 0x80) return key;
                c = static_cast<char>(v);
                i += 5;
            }
            if (n == 7) return key;
            out[n++] = c;
        }
        return {out, n};
    }

    // Validates one value at p (whitespace already skipped) whose container
    // sits at `depth`. Iterative: nesting costs a bit, not a stack frame.
    MCP_LOADTEST_DECL static const char* skip_value(const char* p, const char* e, int depth, const char*& fail) noexcept;

    // The top-level members the envelope is read from, one bit each.
    static constexpr unsigned m_id = 1, m_error = 2, m_result = 4, m_method = 8, m_params = 16, m_jsonrpc = 32;

    MCP_LOADTEST_ALWAYS_INLINE static unsigned member_of(std::string_view key) noexcept {
        switch (key.size()) {
            case 2: return is(key, "id") ? m_id : 0;
            case 5: return is(key, "error") ? m_error : 0;
            case 6: return is(key, "result") ? m_result : is(key, "method") ? m_method : is(key, "params") ? m_params : 0;
            case 7: return is(key, "jsonrpc") ? m_jsonrpc : 0;
            default: return 0;
        }
    }

    MCP_LOADTEST_DECL static const char* member_name(unsigned m) noexcept;

    MCP_LOADTEST_DECL static void note_duplicate(envelope& env, const char* name, const char* key, const char* begin) noexcept;

    // The "result" object: its members, noting whether "isError" is the literal true.
    MCP_LOADTEST_DECL static const char* result_object(const char* p, const char* e, const char* begin, envelope& env,
                                     const char*& fail) noexcept;

    // A non-negative integer id that fits 64 bits (validated as a number already).
    MCP_LOADTEST_ALWAYS_INLINE static bool parse_id(const char* b, const char* e, std::uint64_t& out) noexcept {
        std::uint64_t n = 0;
        if (e - b <= 19) {  // below 10^19: cannot overflow 64 bits, no check per digit
            for (const char* p = b; p < e; ++p) {
                const auto digit = static_cast<unsigned>(*p - '0');
                if (digit > 9) return false;  // a fraction or an exponent
                n = n * 10 + digit;
            }
            out = n;
            return true;
        }
        for (const char* p = b; p < e; ++p) {
            const auto digit = static_cast<unsigned>(*p - '0');
            if (digit > 9) return false;  // a fraction or an exponent
            if (n > (UINT64_MAX - digit) / 10) return false;
            n = n * 10 + digit;
        }
        out = n;
        return true;
    }

    MCP_LOADTEST_DECL static const char* top_object(const char* p, const char* e, const char* begin, envelope& env,
                                  const char*& fail) noexcept;

    // A member's bit, reading a key written with escapes as a parser would.
    MCP_LOADTEST_ALWAYS_INLINE static unsigned member_of_key(std::string_view key, char (&unescaped)[8]) noexcept;

    // Notes a top-level member's value [vb, p); `again` when its name came before.
    MCP_LOADTEST_ALWAYS_INLINE static void record_member(envelope& env, unsigned m, bool again, const char* vb,
                                                         const char* p, const char* begin) noexcept;

    // The fast path (impl/json_scan.ipp says what it takes): a valid object whose '}' is the
    // line's last byte that is not whitespace (`last` points at it), nested at most 64 deep.
    // Anything else (every invalid line among them) makes it return false, and the line is
    // scanned again from its start by the path above: failures and offsets are that path's.
    static constexpr int valid_max_depth = 64;
    MCP_LOADTEST_DECL static bool scan_valid(const char* begin, const char* e, envelope& env) noexcept;
    MCP_LOADTEST_ALWAYS_INLINE static const char* valid_result(const char* p, const char* e, const char* last,
                                                               const char* begin, envelope& env) noexcept;
    MCP_LOADTEST_DECL static const char* valid_value(const char* p, const char* e, const char* last, int depth) noexcept;
    MCP_LOADTEST_DECL static const char* valid_object(const char* p, const char* e, const char* last, int depth) noexcept;
    MCP_LOADTEST_DECL static const char* valid_array(const char* p, const char* e, const char* last, int depth) noexcept;
    MCP_LOADTEST_ALWAYS_INLINE static const char* valid_member_value(const char* p, const char* e, const char* last,
                                                                     int depth) noexcept;
    MCP_LOADTEST_ALWAYS_INLINE static const char* valid_key(const char* p, const char* e, const char* last,
                                                            std::string_view& key) noexcept;
    MCP_LOADTEST_ALWAYS_INLINE static const char* valid_string(const char* p, const char* e) noexcept;
    // A string with an escape or a non-ASCII byte, read by the exact path: nullptr when it has bad text.
    MCP_LOADTEST_NOINLINE static const char* valid_escaped_string(const char* p, const char* e) noexcept {
        const char* fail = nullptr;
        p = skip_string(p, e, fail);
        return fail ? nullptr : p;
    }
    MCP_LOADTEST_ALWAYS_INLINE static const char* valid_number(const char* p) noexcept;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/json_scan.ipp>
#endif
