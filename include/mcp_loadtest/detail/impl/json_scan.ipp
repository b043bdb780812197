// Definitions of detail/json_scan.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/json_scan.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL envelope envelope_scanner::scan(std::string_view line) noexcept {
#if defined(MCP_LOADTEST_DETAIL_SCAN_SSE2)
    // The string search reads the 16 bytes that end where the line does: a
    // shorter line is scanned in a copy with room before it. Spans and offsets
    // are relative to the line's start, so the copy reports the same ones.
    if (line.size() < 16) [[unlikely]] {
        char padded[32] = {};
        if (!line.empty()) std::memcpy(padded + 16, line.data(), line.size());
        return scan_text(padded + 16, padded + 16 + line.size());
    }
#endif
    return scan_text(line.data(), line.data() + line.size());
}

MCP_LOADTEST_DECL envelope envelope_scanner::scan_text(const char* const begin, const char* const end) noexcept {
    envelope env;
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
            if (seen_is_error) note_duplicate(env, "result.isError", key.data(), begin);
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

MCP_LOADTEST_DECL const char* envelope_scanner::top_object(const char* p, const char* e, const char* begin, envelope& env,
                              const char*& fail) noexcept {
    const auto make_span = [begin](const char* b, const char* end) {
        return span{static_cast<std::uint32_t>(b - begin), static_cast<std::uint32_t>(end - b)};
    };
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
        unsigned m = member_of(key);
        if (m == 0 && key.size() >= 7 && std::memchr(key.data(), '\\', key.size()))  // "\\u0069d"
            m = member_of(unescape_name(key, unescaped));
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
        bool more = false;
        if (!(p = after_member(p, e, more, fail)) || !more) return p;
    }
}

}  // namespace mcp_loadtest::detail
