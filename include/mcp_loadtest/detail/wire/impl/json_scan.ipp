// Definitions of detail/wire/json_scan.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/json_scan.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL envelope envelope_scanner::scan(std::string_view line) noexcept {
    return scan_line(line, true);
}

MCP_LOADTEST_DECL envelope envelope_scanner::scan_exact(std::string_view line) noexcept {
    return scan_line(line, false);
}

MCP_LOADTEST_ALWAYS_INLINE envelope envelope_scanner::scan_line(std::string_view line, bool fast) noexcept {
#if defined(MCP_LOADTEST_DETAIL_SCAN_SSE2)
    // The string search reads the 16 bytes that end where the line does: a
    // shorter line is scanned in a copy with room before it. Spans and offsets
    // are relative to the line's start, so the copy reports the same ones.
    if (line.size() < 16) [[unlikely]] {
        char padded[32] = {};
        if (!line.empty()) std::memcpy(padded + 16, line.data(), line.size());
        return scan_text(padded + 16, padded + 16 + line.size(), fast);
    }
#endif
    return scan_text(line.data(), line.data() + line.size(), fast);
}

MCP_LOADTEST_DECL envelope envelope_scanner::scan_text(const char* const begin, const char* const end, bool fast) noexcept {
    envelope env;
    if (fast && scan_valid(begin, end, env)) [[likely]] return env;  // a valid object: the fast path (below)
    env = envelope{};  // anything else is read again from the start
    const char* fail = nullptr;  // the syntax error, else the first bad text
    const char* p = skip_ws(begin, end);
    if (p < end && *p == '{') {
        env.is_object = true;
        p = top_object(p, end, begin, env, fail);
    } else {
        p = skip_value(p, end, 0, fail);
    }
    bool syntax_ok = false;
    if (p) {
        if (p != end) p = skip_ws(p, end);
        if (p == end) syntax_ok = true;
        else fail = p;
    }
    env.valid = syntax_ok && !fail;
    if (!env.valid) {
        env.error_offset = static_cast<std::size_t>(fail - begin);
        env.failure = fail < end && static_cast<unsigned char>(*fail) >= 0x80 && utf8_length(fail, end) == 0
                          ? scan_failure::invalid_utf8
                      : syntax_ok ? scan_failure::unpaired_surrogate
                                  : scan_failure::syntax;
    }
    return env;
}

MCP_LOADTEST_DECL const char* envelope_scanner::describe(scan_failure f) noexcept {
    switch (f) {
        case scan_failure::none: return "valid";
        case scan_failure::syntax: return "syntax error";
        case scan_failure::invalid_utf8: return "invalid UTF-8";
        case scan_failure::unpaired_surrogate: return "unpaired UTF-16 surrogate escape";
    }
    return "invalid";
}

MCP_LOADTEST_DECL bool envelope_scanner::is_hex(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

MCP_LOADTEST_DECL unsigned envelope_scanner::hex4(const char* p) noexcept {  // four hex digits, already checked
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        v = v * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

MCP_LOADTEST_DECL const char* envelope_scanner::skip_value(const char* p, const char* e, int depth, const char*& fail) noexcept {
    // Per open container: object or array. Each entry is written when its
    // container opens, before it is read: nothing to clear per call.
    bool is_object[max_depth];
    int open = 0;
    std::string_view key;
    for (;;) {
        if (p >= e) return fail = p, nullptr;
        switch (*p) {
            case '"': p = skip_string(p, e, fail); break;
            case ' ': case '\t': case '\n': case '\r':  // before an array's element
                p = skip_ws(p, e);
                continue;
            case 't': p = skip_literal(p, e, "true", fail); break;
            case 'f': p = skip_literal(p, e, "false", fail); break;
            case 'n': p = skip_literal(p, e, "null", fail); break;
            case '{':
            case '[': {
                const bool obj = *p == '{';
                if (depth + open + 1 > max_depth) return fail = p, nullptr;
                is_object[open] = obj;
                ++open;
                ++p;
                if (p < e && static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
                    p = skip_ws(p, e);
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
        // After a value: commas and closing brackets (whitespace is rare: tested last).
        for (;;) {
            if (open == 0) return p;
            if (p >= e) return fail = p, nullptr;
            const bool obj = is_object[open - 1];
            if (*p == ',') {
                ++p;
                if (obj && !(p = skip_key(p, e, key, fail))) return nullptr;
                break;  // the next value
            }
            if (*p == (obj ? '}' : ']')) {
                ++p;
                --open;
                continue;
            }
            if (!is_ws(*p)) return fail = p, nullptr;
            p = skip_ws(p, e);
        }
    }
}

MCP_LOADTEST_DECL const char* envelope_scanner::member_name(unsigned m) noexcept {
    switch (m) {
        case m_id: return "id";
        case m_error: return "error";
        case m_result: return "result";
        case m_method: return "method";
        case m_params: return "params";
        default: return "jsonrpc";
    }
}

MCP_LOADTEST_DECL void envelope_scanner::note_duplicate(envelope& env, const char* name, const char* key, const char* begin) noexcept {
    if (env.duplicate) return;
    env.duplicate = name;
    env.duplicate_offset = static_cast<std::uint32_t>(key - 1 - begin);  // at its opening quote
}

MCP_LOADTEST_DECL const char* envelope_scanner::result_object(const char* p, const char* e, const char* begin, envelope& env,
                                 const char*& fail) noexcept {
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}') return p + 1;
    std::string_view key;
    bool seen_is_error = false;
    char unescaped[8];
    for (;;) {
        if (!(p = skip_key(p, e, key, fail))) return nullptr;  // skip_value takes whitespace before a value
        bool is_error_key = is(key, "isError");
        if (!is_error_key && key.size() >= 12 && std::memchr(key.data(), '\\', key.size()))  // "\\u0069sError"
            is_error_key = is(unescape_name(key, unescaped), "isError");
        if (is_error_key) {
            if (seen_is_error) note_duplicate(env, result_is_error_name, key.data(), begin);
            seen_is_error = true;
            p = skip_ws(p, e);
        }
        if (is_error_key && static_cast<std::size_t>(e - p) >= 4 && std::memcmp(p, "true", 4) == 0) {
            env.result_is_error_flagged = true;
            p += 4;
        } else if (!(p = skip_value(p, e, 1, fail))) {
            return nullptr;
        }
        bool more = false;
        if (!(p = after_member(p, e, more, fail)) || !more) return p;
    }
}

MCP_LOADTEST_ALWAYS_INLINE unsigned envelope_scanner::member_of_key(std::string_view key, char (&unescaped)[8]) noexcept {
    const unsigned m = member_of(key);
    if (m == 0 && key.size() >= 7 && std::memchr(key.data(), '\\', key.size()))  // "\\u0069d"
        return member_of(unescape_name(key, unescaped));
    return m;
}

MCP_LOADTEST_ALWAYS_INLINE void envelope_scanner::record_member(envelope& env, unsigned m, bool again, const char* vb,
                                                                const char* p, const char* begin) noexcept {
    const auto make_span = [begin](const char* b, const char* end) {
        return span{static_cast<std::uint32_t>(b - begin), static_cast<std::uint32_t>(end - b)};
    };
    const span v = make_span(vb, p);
    switch (m) {
        case m_id:
            if (!again) env.id = v;
            // With two ids, the first integer one: a call it may name is failed.
            if (!env.id_is_integer && *vb >= '0' && *vb <= '9')
                env.id_is_integer = parse_id(vb, p, env.id_value);
            break;
        case m_error:
            if (!again) env.error = v;
            break;
        case m_result:
            if (!again) env.result = v;
            break;
        case m_method:
            if (!again && *vb == '"') env.method = make_span(vb + 1, p - 1);
            break;
        case m_params:
            if (!again) env.params = v;
            break;
        case m_jsonrpc:
            if (!again) env.jsonrpc_20 = is(std::string_view(vb, static_cast<std::size_t>(p - vb)), "\"2.0\"");
            break;
        default: break;
    }
}

MCP_LOADTEST_DECL const char* envelope_scanner::top_object(const char* p, const char* e, const char* begin, envelope& env,
                              const char*& fail) noexcept {
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}') return p + 1;
    std::string_view key;
    unsigned seen = 0;  // the members met so far, one bit each
    char unescaped[8];
    // Most servers write "jsonrpc":"2.0" first, compactly: sixteen bytes, one comparison.
    static constexpr char jsonrpc_first[] = R"("jsonrpc":"2.0",)";
    static_assert(sizeof jsonrpc_first - 1 == 16);
    if (e - p >= 16 && std::memcmp(p, jsonrpc_first, 16) == 0) {
        env.jsonrpc_20 = true;
        seen = m_jsonrpc;
        p += 16;
    }
    for (;;) {
        if (!(p = skip_key(p, e, key, fail))) return nullptr;
        const unsigned m = member_of_key(key, unescaped);
        const bool again = (seen & m) != 0;  // the first one is kept; the message is flagged
        if (again) note_duplicate(env, member_name(m), key.data(), begin);
        seen |= m;
        if (p < e && static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
            p = skip_ws(p, e);  // compact JSON has none: one test
        const char* vb = p;
        if (p < e && *p == '"') {  // strings and small numbers inline: most envelope values are
            if (!(p = skip_string(p, e, fail))) return nullptr;
        } else if (p < e && *p >= '0' && *p <= '9') {
            if (!(p = skip_number(p, e, fail))) return nullptr;
        } else if (m == m_result && p < e && *p == '{') {
            env.result_is_object = true;
            if (!(p = result_object(p, e, begin, env, fail))) return nullptr;
        } else if (!(p = skip_value(p, e, 1, fail))) {
            return nullptr;
        }
        record_member(env, m, again, vb, p, begin);
        bool more = false;
        if (!(p = after_member(p, e, more, fail)) || !more) return p;
    }
}

// The fast path. What servers send is a valid, compact object, and most of the exact path's
// cost on it is bookkeeping that only an invalid line needs: a bounds check before every
// byte, where a failure is, a stack as deep as the nesting limit. This path assumes the line
// is valid and gives up at the first sign that it is not, or that it is unusual (nesting over
// 64), returning false; scan_text() then runs the exact path from the start. So it only ever
// reports a line the exact path finds valid, and then the same envelope: members are recorded
// by the same code, and the grammar is checked the same way (numbers, literals, strings;
// whitespace is allowed wherever JSON allows it, as the exact path does, tested for only
// where the expected byte is not there).
//
// Bounds: the line's last byte that is not whitespace must be '}' (`last`), taken as the top
// object's. Every read of a token stops at it (a number or a literal cannot hold a '}', and
// literals are checked against it), so tokens need no bounds checks; only a '}' read as an
// inner container's close could step past it, and that is checked there (such a line is
// invalid). Strings are searched as on the exact path, up to the line's end; one with an
// escape or a non-ASCII byte is read by the exact path's skip_string, and any bad text in it
// means "not this path".

MCP_LOADTEST_ALWAYS_INLINE const char* envelope_scanner::valid_number(const char* p) noexcept {
    const auto digit = [](char c) { return static_cast<unsigned char>(c - '0') <= 9; };
    if (*p == '-') ++p;
    if (*p == '0') ++p;
    else if (digit(*p)) do ++p; while (digit(*p));
    else return nullptr;
    if (*p == '.') {
        if (!digit(*++p)) return nullptr;
        do ++p; while (digit(*p));
    }
    if ((*p | 0x20) == 'e') {  // 'e' or 'E'
        ++p;
        if (*p == '+' || *p == '-') ++p;
        if (!digit(*p)) return nullptr;
        do ++p; while (digit(*p));
    }
    return p;
}

MCP_LOADTEST_ALWAYS_INLINE const char* envelope_scanner::valid_string(const char* p, const char* e) noexcept {
    const char* q = find_special(p + 1, e);
    if (q < e && *q == '"') [[likely]] return q + 1;  // before `last`: the bytes after it are whitespace
    return valid_escaped_string(p, e);
}

MCP_LOADTEST_ALWAYS_INLINE const char* envelope_scanner::valid_key(const char* p, const char* e, const char* last,
                                                                   std::string_view& key) noexcept {
    if (*p != '"') [[unlikely]] {
        p = skip_ws(p, last);
        if (*p != '"') return nullptr;
    }
    const char* kb = p + 1;
    if (!(p = valid_string(p, e))) return nullptr;
    key = std::string_view(kb, static_cast<std::size_t>(p - 1 - kb));
    if (*p != ':') [[unlikely]] {
        p = skip_ws(p, last);
        if (*p != ':') return nullptr;
    }
    return p + 1;
}

// A value at p, inside `depth` open containers: strings and numbers inline (most values are),
// anything else out of line.
MCP_LOADTEST_ALWAYS_INLINE const char* envelope_scanner::valid_member_value(const char* p, const char* e,
                                                                            const char* last, int depth) noexcept {
    if (*p == '"') return valid_string(p, e);
    if (static_cast<unsigned char>(*p - '0') <= 9) return valid_number(p);
    return valid_value(p, e, last, depth);
}

MCP_LOADTEST_DECL const char* envelope_scanner::valid_value(const char* p, const char* e, const char* last, int depth) noexcept {
    if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
        p = skip_ws(p, last);
    switch (*p) {
        case '"': return valid_string(p, e);
        case '{': return valid_object(p, e, last, depth);
        case '[': return valid_array(p, e, last, depth);
        case 't': return last - p >= 4 && std::memcmp(p, "true", 4) == 0 ? p + 4 : nullptr;
        case 'f': return last - p >= 5 && std::memcmp(p, "false", 5) == 0 ? p + 5 : nullptr;
        case 'n': return last - p >= 4 && std::memcmp(p, "null", 4) == 0 ? p + 4 : nullptr;
        default: return valid_number(p);
    }
}

MCP_LOADTEST_DECL const char* envelope_scanner::valid_object(const char* p, const char* e, const char* last, int depth) noexcept {
    if (depth == valid_max_depth) return nullptr;
    ++p;
    if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
        p = skip_ws(p, last);
    std::string_view key;
    if (*p != '}') {
        for (;;) {
            if (!(p = valid_key(p, e, last, key)) || !(p = valid_member_value(p, e, last, depth + 1))) return nullptr;
            if (*p == ',') {
                ++p;
                continue;
            }
            if (*p != '}') [[unlikely]] {
                if (!is_ws(*p)) return nullptr;
                p = skip_ws(p, last);
                if (*p == ',') {
                    ++p;
                    continue;
                }
                if (*p != '}') return nullptr;
            }
            break;
        }
    }
    return p == last ? nullptr : p + 1;  // the last '}' is the top object's
}

MCP_LOADTEST_DECL const char* envelope_scanner::valid_array(const char* p, const char* e, const char* last, int depth) noexcept {
    if (depth == valid_max_depth) return nullptr;
    ++p;
    if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
        p = skip_ws(p, last);
    if (*p != ']') {
        for (;;) {
            if (!(p = valid_member_value(p, e, last, depth + 1))) return nullptr;
            if (*p == ',') {
                ++p;
                continue;
            }
            if (*p != ']') [[unlikely]] {
                if (!is_ws(*p)) return nullptr;
                p = skip_ws(p, last);
                if (*p == ',') {
                    ++p;
                    continue;
                }
                if (*p != ']') return nullptr;
            }
            break;
        }
    }
    return p + 1;  // `last` is a '}', so p is before it
}

MCP_LOADTEST_ALWAYS_INLINE const char* envelope_scanner::valid_result(const char* p, const char* e, const char* last,
                                                                      const char* begin, envelope& env) noexcept {
    std::string_view key;
    bool seen_is_error = false;
    char unescaped[8];
    // One member: its key, and its value or the literal true of an "isError".
    const auto member = [&](const char* p) -> const char* {
        if (!(p = valid_key(p, e, last, key))) return nullptr;
        bool is_error_key = is(key, "isError");
        if (!is_error_key && key.size() >= 12 && std::memchr(key.data(), '\\', key.size()))  // "\\u0069sError"
            is_error_key = is(unescape_name(key, unescaped), "isError");
        if (is_error_key) {
            if (seen_is_error) note_duplicate(env, result_is_error_name, key.data(), begin);
            seen_is_error = true;
            p = skip_ws(p, last);
            if (last - p >= 4 && std::memcmp(p, "true", 4) == 0) {
                env.result_is_error_flagged = true;
                return p + 4;
            }
        }
        return valid_member_value(p, e, last, 2);
    };
    // A tool's result most often starts with one text block, written the same way by every
    // SDK: compared whole, it is the first member. (When more follows the text, the member is
    // read again below, the usual way.)
    static constexpr char text_block[] = R"({"content":[{"type":"text","text":")";
    const char* q = nullptr;
    if (last - p > 35 && std::memcmp(p, text_block, 35) == 0) {
        if (!(q = valid_string(p + 34, e))) return nullptr;
        q = q < last && q[0] == '}' && q[1] == ']' ? q + 2 : nullptr;
    }
    if (q) {
        p = q;
    } else {
        ++p;
        if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
            p = skip_ws(p, last);
        if (*p == '}') return p == last ? nullptr : p + 1;
        if (!(p = member(p))) return nullptr;
    }
    for (;;) {
        if (*p == ',') {
            if (!(p = member(p + 1))) return nullptr;
            continue;
        }
        if (*p != '}') [[unlikely]] {
            if (!is_ws(*p)) return nullptr;
            p = skip_ws(p, last);
            if (*p == ',') continue;
            if (*p != '}') return nullptr;
        }
        return p == last ? nullptr : p + 1;
    }
}

MCP_LOADTEST_DECL bool envelope_scanner::scan_valid(const char* const begin, const char* const e, envelope& env) noexcept {
    if (e - begin < 2) return false;  // (portable builds do not pad short lines: no reading before begin)
    const char* last = e - 1;
    if (*last != '}') [[unlikely]] {
        while (last > begin && is_ws(*last)) --last;
        if (last == begin || *last != '}') return false;
    }
    if (*begin != '{') return false;
    const char* p = begin + 1;
    env.is_object = true;
    if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
        p = skip_ws(p, last);
    if (*p != '}') {
        std::string_view key;
        unsigned seen = 0;
        char unescaped[8];
        static constexpr char jsonrpc_first[] = R"("jsonrpc":"2.0",)";
        if (e - p >= 16 && std::memcmp(p, jsonrpc_first, 16) == 0) {
            env.jsonrpc_20 = true;
            seen = m_jsonrpc;
            p += 16;
        }
        for (;;) {
            // The names looked for, written compactly, are known by their bytes; others are read.
            unsigned m;
            if (last - p >= 9 && std::memcmp(p, R"("id":)", 5) == 0) {
                key = std::string_view(p + 1, 2);
                m = m_id;
                p += 5;
            } else if (last - p >= 9 && std::memcmp(p, R"("result":)", 9) == 0) {
                key = std::string_view(p + 1, 6);
                m = m_result;
                p += 9;
            } else if (last - p >= 9 && std::memcmp(p, R"("error":)", 8) == 0) {
                key = std::string_view(p + 1, 5);
                m = m_error;
                p += 8;
            } else {
                if (!(p = valid_key(p, e, last, key))) return false;
                m = member_of_key(key, unescaped);
            }
            const bool again = (seen & m) != 0;
            if (again) note_duplicate(env, member_name(m), key.data(), begin);
            seen |= m;
            if (static_cast<unsigned char>(*p) <= ' ') [[unlikely]]
                p = skip_ws(p, last);
            const char* vb = p;
            if (*p == '"') {
                if (!(p = valid_string(p, e))) return false;
                record_member(env, m, again, vb, p, begin);
            } else if (static_cast<unsigned char>(*p - '0') <= 9) {
                if (m == m_id && !env.id_is_integer) {
                    // The id read as it is validated: parse_id's common case, without a second pass.
                    std::uint64_t n = 0;
                    if (*p == '0') ++p;
                    else do n = n * 10 + static_cast<unsigned>(*p++ - '0'); while (static_cast<unsigned char>(*p - '0') <= 9);
                    if (*p == '.' || (*p | 0x20) == 'e' || p - vb > 19) {  // not an integer, or parse_id's to check
                        if (!(p = valid_number(vb))) return false;
                        record_member(env, m, again, vb, p, begin);
                    } else {
                        if (!again) env.id = span{static_cast<std::uint32_t>(vb - begin), static_cast<std::uint32_t>(p - vb)};
                        env.id_is_integer = true;
                        env.id_value = n;
                    }
                } else {
                    if (!(p = valid_number(p))) return false;
                    record_member(env, m, again, vb, p, begin);
                }
            } else if (m == m_result && *p == '{') {
                env.result_is_object = true;
                if (!(p = valid_result(p, e, last, begin, env))) return false;
                record_member(env, m, again, vb, p, begin);
            } else {
                if (!(p = valid_value(p, e, last, 1))) return false;
                record_member(env, m, again, vb, p, begin);
            }
            if (*p == ',') {
                ++p;
                continue;
            }
            if (*p != '}') [[unlikely]] {
                if (!is_ws(*p)) return false;
                p = skip_ws(p, last);
                if (*p == ',') {
                    ++p;
                    continue;
                }
                if (*p != '}') return false;
            }
            break;
        }
    }
    if (p != last) return false;  // more after the top object
    env.valid = true;
    return true;
}

}  // namespace mcp_loadtest::detail
