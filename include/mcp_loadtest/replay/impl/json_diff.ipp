// Definitions of replay/json_diff.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/replay/json_diff.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail::json_diff_impl {

/// One segment of a pointer pattern: `*` (any key or index), or a key, which is also an
/// array index when it is a decimal number without leading zeros.
struct pattern_segment {
    bool any = false;
    std::string key;
    bool is_index = false;
    std::size_t index = 0;
};
using pattern = std::vector<pattern_segment>;

[[noreturn]] inline void bad_pattern(std::string_view field, const std::string& text, std::string_view what) {
    throw std::invalid_argument("diff_rules: bad " + std::string(field) + " pattern \"" + text + "\": " +
                                std::string(what) +
                                "; a pattern is a JSON pointer such as /result/content/*/_meta (it starts with '/', "
                                "'~0' stands for '~' and '~1' for '/' in a key, and a '*' segment matches any one "
                                "key or array index)");
}

inline pattern parse_pattern(const std::string& text, std::string_view field) {
    if (text.empty() || text.front() != '/')
        bad_pattern(field, text, text.empty() ? "it is empty" : "it does not start with '/'");
    pattern segments;
    std::string current;
    bool escaped = false;  // the segment had a ~ escape: "~1" is never the wildcard
    const auto finish = [&] {
        pattern_segment s;
        s.any = current == "*" && !escaped;
        if (!s.any && !current.empty() && current.size() <= 18 &&
            std::all_of(current.begin(), current.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
            (current.size() == 1 || current.front() != '0')) {
            s.is_index = true;
            s.index = static_cast<std::size_t>(std::stoull(current));
        }
        s.key = std::move(current);
        segments.push_back(std::move(s));
        current.clear();
        escaped = false;
    };
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '/') {
            finish();
        } else if (c == '~') {
            if (i + 1 >= text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))
                bad_pattern(field, text, "'~' must be followed by 0 (for '~') or 1 (for '/')");
            current += text[i + 1] == '0' ? '~' : '/';
            escaped = true;
            ++i;
        } else {
            current += c;
        }
    }
    finish();
    return segments;
}

/// Where the walk is: a key of an object or an index of an array.
struct step {
    const std::string* key = nullptr;
    std::size_t index = 0;
};

inline bool segment_matches(const pattern_segment& s, const step& at) {
    if (s.any) return true;
    if (at.key != nullptr) return *at.key == s.key;
    return s.is_index && s.index == at.index;
}

inline bool path_matches(const std::vector<pattern>& patterns, const std::vector<step>& path) {
    for (const auto& p : patterns) {
        if (p.size() != path.size()) continue;
        bool all = true;
        for (std::size_t i = path.size(); i-- > 0;)  // the deepest segment differs most often
            if (!segment_matches(p[i], path[i])) {
                all = false;
                break;
            }
        if (all) return true;
    }
    return false;
}

inline void escape_token(std::string& out, std::string_view key) {
    for (const char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
}

inline void append_string(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

inline void append_number(std::string& out, const json& v) {
    if (v.is_number_unsigned()) {
        out += std::to_string(v.get<std::uint64_t>());
        return;
    }
    if (v.is_number_integer()) {
        out += std::to_string(v.get<std::int64_t>());
        return;
    }
    const double d = v.get<double>();
    if (!std::isfinite(d)) {  // not JSON; nlohmann writes null too
        out += "null";
        return;
    }
    if (d == std::trunc(d)) {  // integral: printed as the integer it equals (-0.0 too)
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
            out += std::to_string(static_cast<std::int64_t>(d));
            return;
        }
        if (d >= 0 && d < 18446744073709551616.0) {
            out += std::to_string(static_cast<std::uint64_t>(d));
            return;
        }
    }
    char buf[32];
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back as d
    out.append(buf, r.ptr);
#else
    const int n = std::snprintf(buf, sizeof buf, "%.17g", d);
    out.append(buf, static_cast<std::size_t>(n));
#endif
}

/// null, boolean, number, string, array, object (integers and floats are all numbers).
inline int kind_of(const json& v) {
    switch (v.type()) {
        case json::value_t::null: return 0;
        case json::value_t::boolean: return 1;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float: return 2;
        case json::value_t::string: return 3;
        case json::value_t::array: return 4;
        case json::value_t::object: return 5;
        default: return 6;
    }
}

inline bool numbers_equal(const json& x, const json& y, double tolerance) {
    const bool xi = x.is_number_integer(), yi = y.is_number_integer();  // unsigned counts as integer
    if (xi && yi) {
        bool same = false;
        if (x.is_number_unsigned() && y.is_number_unsigned()) {
            same = x.get<std::uint64_t>() == y.get<std::uint64_t>();
        } else if (x.is_number_unsigned() || y.is_number_unsigned()) {
            const json& u = x.is_number_unsigned() ? x : y;
            const auto s = (x.is_number_unsigned() ? y : x).get<std::int64_t>();
            same = s >= 0 && static_cast<std::uint64_t>(s) == u.get<std::uint64_t>();
        } else {
            same = x.get<std::int64_t>() == y.get<std::int64_t>();
        }
        if (same || tolerance <= 0) return same;
    }
    const double dx = x.get<double>(), dy = y.get<double>();
    return dx == dy || std::fabs(dx - dy) <= tolerance;
}

/// A string that may hold a JSON object or array: its first non-blank character opens one.
inline bool may_hold_json(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && (s[first] == '{' || s[first] == '[');
}

inline bool parse_container(const std::string& s, json& out) {
    if (!may_hold_json(s)) return false;
    out = json::parse(s, nullptr, /*allow_exceptions=*/false);
    return out.is_object() || out.is_array();
}

/// canonical_json() written into `out`.
inline void canonical_plain(std::string& out, const json& value);

class walker {
public:
    walker(std::vector<pattern> ignore, std::vector<pattern> unordered, double tolerance, bool parse_text,
           std::size_t max_differences)
        : ignore_(std::move(ignore)),
          unordered_(std::move(unordered)),
          tolerance_(tolerance),
          parse_text_(parse_text),
          max_(max_differences) {}

    void walk(const json& b, const json& a) {
        if (probing_ && found_) return;
        if (!ignore_.empty() && !path_.empty() && path_matches(ignore_, path_)) return;
        const int kb = kind_of(b);
        if (kb != kind_of(a)) {
            emit(difference_kind::type_changed, b, a);
            return;
        }
        switch (kb) {
            case 0: return;
            case 1:
                if (b.get<bool>() != a.get<bool>()) emit(difference_kind::changed, b, a);
                return;
            case 2:
                if (!numbers_equal(b, a, tolerance_)) emit(difference_kind::changed, b, a);
                return;
            case 3: walk_string(b, a); return;
            case 4: walk_array(b, a); return;
            case 5: walk_object(b, a); return;
            default:
                if (b != a) emit(difference_kind::changed, b, a);
                return;
        }
    }

    json_diff result;

private:
    void emit(difference_kind kind, const json& b, const json& a) {
        if (probing_) {
            found_ = true;
            return;
        }
        if (result.differences.size() >= max_) {
            ++result.not_shown;
            return;
        }
        result.differences.push_back(json_difference{pointer(), kind, b, a});
    }

    /// A value only one side has, at the path's last step.
    void one_sided(difference_kind kind, const json& value) {
        if (!ignore_.empty() && path_matches(ignore_, path_)) return;
        if (kind == difference_kind::added)
            emit(kind, json(), value);
        else
            emit(kind, value, json());
    }

    [[nodiscard]] std::string pointer() const {
        std::string p;
        for (const auto& s : path_) {
            p += '/';
            if (s.key != nullptr)
                escape_token(p, *s.key);
            else
                p += std::to_string(s.index);
        }
        return p;
    }

    void walk_string(const json& b, const json& a) {
        const auto& sb = b.get_ref<const std::string&>();
        const auto& sa = a.get_ref<const std::string&>();
        if (sb == sa) return;
        if (parse_text_) {
            json pb, pa;
            if (parse_container(sb, pb) && parse_container(sa, pa)) {
                walk(pb, pa);  // the pointer goes on inside the text
                return;
            }
        }
        emit(difference_kind::changed, b, a);
    }

    void walk_object(const json& b, const json& a) {
        const auto& ob = b.get_ref<const json::object_t&>();
        const auto& oa = a.get_ref<const json::object_t&>();
        auto ib = ob.begin(), ia = oa.begin();
        while (ib != ob.end() || ia != oa.end()) {  // both sorted by key: merged in document order
            if (probing_ && found_) return;
            const int order = ib == ob.end() ? 1 : ia == oa.end() ? -1 : ib->first.compare(ia->first);
            if (order == 0) {
                path_.push_back(step{&ib->first, 0});
                walk(ib->second, ia->second);
                ++ib, ++ia;
            } else if (order < 0) {
                path_.push_back(step{&ib->first, 0});
                one_sided(difference_kind::removed, ib->second);
                ++ib;
            } else {
                path_.push_back(step{&ia->first, 0});
                one_sided(difference_kind::added, ia->second);
                ++ia;
            }
            path_.pop_back();
        }
    }

    void walk_array(const json& b, const json& a) {
        if (!unordered_.empty() && path_matches(unordered_, path_)) {
            walk_multiset(b, a);
            return;
        }
        if (!probing_ && b.size() == a.size() && b.size() > 1) {
            probing_ = true;
            found_ = false;
            walk_elements(b, a);
            probing_ = false;
            if (!found_) return;  // equal under the rules
            if (same_multiset(b, a)) {
                emit(difference_kind::reordered, b, a);
                return;
            }
        }
        walk_elements(b, a);
    }

    void walk_elements(const json& b, const json& a) {
        const std::size_t common = std::min(b.size(), a.size());
        for (std::size_t i = 0; i < common; ++i) {
            if (probing_ && found_) return;
            path_.push_back(step{nullptr, i});
            walk(b[i], a[i]);
            path_.pop_back();
        }
        for (std::size_t i = common; i < b.size(); ++i) {
            path_.push_back(step{nullptr, i});
            one_sided(difference_kind::removed, b[i]);
            path_.pop_back();
        }
        for (std::size_t i = common; i < a.size(); ++i) {
            path_.push_back(step{nullptr, i});
            one_sided(difference_kind::added, a[i]);
            path_.pop_back();
        }
    }

    /// Canonical texts of an array's elements under the ignore rules (and JSON in strings).
    std::vector<std::string> element_texts(const json& arr) {
        std::vector<std::string> texts(arr.size());
        for (std::size_t i = 0; i < arr.size(); ++i) {
            path_.push_back(step{nullptr, i});
            canonical(texts[i], arr[i]);
            path_.pop_back();
        }
        return texts;
    }

    /// Matches equal elements (by canonical text); returns the unmatched indices of each side.
    std::pair<std::vector<std::size_t>, std::vector<std::size_t>> unmatched(const json& b, const json& a) {
        const auto tb = element_texts(b), ta = element_texts(a);
        std::vector<std::size_t> ib(tb.size()), ia(ta.size());
        for (std::size_t i = 0; i < ib.size(); ++i) ib[i] = i;
        for (std::size_t i = 0; i < ia.size(); ++i) ia[i] = i;
        std::stable_sort(ib.begin(), ib.end(), [&](std::size_t x, std::size_t y) { return tb[x] < tb[y]; });
        std::stable_sort(ia.begin(), ia.end(), [&](std::size_t x, std::size_t y) { return ta[x] < ta[y]; });
        std::vector<std::size_t> removed, added;
        std::size_t i = 0, j = 0;
        while (i < ib.size() && j < ia.size()) {
            const int c = tb[ib[i]].compare(ta[ia[j]]);
            if (c == 0) {
                ++i, ++j;
            } else if (c < 0) {
                removed.push_back(ib[i++]);
            } else {
                added.push_back(ia[j++]);
            }
        }
        while (i < ib.size()) removed.push_back(ib[i++]);
        while (j < ia.size()) added.push_back(ia[j++]);
        std::sort(removed.begin(), removed.end());
        std::sort(added.begin(), added.end());
        return {std::move(removed), std::move(added)};
    }

    bool same_multiset(const json& b, const json& a) {
        const auto [removed, added] = unmatched(b, a);
        return removed.empty() && added.empty();
    }

    void walk_multiset(const json& b, const json& a) {
        const auto [removed, added] = unmatched(b, a);
        for (const auto i : removed) {
            path_.push_back(step{nullptr, i});
            one_sided(difference_kind::removed, b[i]);
            path_.pop_back();
        }
        for (const auto i : added) {
            path_.push_back(step{nullptr, i});
            one_sided(difference_kind::added, a[i]);
            path_.pop_back();
        }
    }

    /// canonical_json() leaving out ignored values, with JSON in strings written as JSON
    /// (marked, so that the string "[1]" and the array [1] stay apart).
    void canonical(std::string& out, const json& v) {
        if (!ignore_.empty() && path_matches(ignore_, path_)) {
            out += '~';
            return;
        }
        switch (v.type()) {
            case json::value_t::object: {
                out += '{';
                bool first = true;
                for (const auto& [key, value] : v.get_ref<const json::object_t&>()) {
                    if (!first) out += ',';
                    first = false;
                    append_string(out, key);
                    out += ':';
                    path_.push_back(step{&key, 0});
                    canonical(out, value);
                    path_.pop_back();
                }
                out += '}';
                return;
            }
            case json::value_t::array: {
                out += '[';
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (i) out += ',';
                    path_.push_back(step{nullptr, i});
                    canonical(out, v[i]);
                    path_.pop_back();
                }
                out += ']';
                return;
            }
            case json::value_t::string: {
                json parsed;
                if (parse_text_ && parse_container(v.get_ref<const std::string&>(), parsed)) {
                    out += "text:";
                    canonical(out, parsed);
                } else {
                    append_string(out, v.get_ref<const std::string&>());
                }
                return;
            }
            default: canonical_plain(out, v); return;
        }
    }

    std::vector<pattern> ignore_, unordered_;
    double tolerance_;
    bool parse_text_;
    std::size_t max_;
    std::vector<step> path_;
    bool probing_ = false;  // only asking whether two values differ: nothing is kept
    bool found_ = false;
};

inline void canonical_plain(std::string& out, const json& value) {
    switch (value.type()) {
        case json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, v] : value.get_ref<const json::object_t&>()) {  // a std::map: sorted
                if (!first) out += ',';
                first = false;
                append_string(out, key);
                out += ':';
                canonical_plain(out, v);
            }
            out += '}';
            break;
        }
        case json::value_t::array: {
            out += '[';
            for (std::size_t i = 0; i < value.size(); ++i) {
                if (i) out += ',';
                canonical_plain(out, value[i]);
            }
            out += ']';
            break;
        }
        case json::value_t::string: append_string(out, value.get_ref<const std::string&>()); break;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float: append_number(out, value); break;
        default: out += value.dump(-1, ' ', false, json::error_handler_t::replace); break;
    }
}


inline std::string value_text(const json& v) {
    constexpr std::size_t limit = 200;
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() <= limit) return s;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    s.resize(cut);
    return s + "...";
}

inline std::string_view type_name(const json& v) {
    switch (kind_of(v)) {
        case 0: return "null";
        case 1: return "boolean";
        case 2: return "number";
        case 3: return "string";
        case 4: return "array";
        case 5: return "object";
        default: return "binary";
    }
}

}  // namespace detail::json_diff_impl

MCP_LOADTEST_DECL std::string_view to_string(difference_kind kind) noexcept {
    switch (kind) {
        case difference_kind::changed: return "changed";
        case difference_kind::type_changed: return "type_changed";
        case difference_kind::added: return "added";
        case difference_kind::removed: return "removed";
        case difference_kind::reordered: return "reordered";
    }
    return "changed";
}

MCP_LOADTEST_DECL json_diff diff_json(const json& before, const json& after, const diff_rules& rules,
                                      std::string_view tool) {
    namespace impl = detail::json_diff_impl;
    std::vector<impl::pattern> ignore, unordered;
    double tolerance = rules.number_tolerance;
    for (const auto& p : rules.ignore) ignore.push_back(impl::parse_pattern(p, "ignore"));
    for (const auto& p : rules.unordered) unordered.push_back(impl::parse_pattern(p, "unordered"));
    for (const auto& [name, more] : rules.per_tool) {
        const bool applies = !tool.empty() && name == tool;
        for (const auto& p : more.ignore) {
            auto parsed = impl::parse_pattern(p, "per_tool[\"" + name + "\"].ignore");  // checked for every tool
            if (applies) ignore.push_back(std::move(parsed));
        }
        for (const auto& p : more.unordered) {
            auto parsed = impl::parse_pattern(p, "per_tool[\"" + name + "\"].unordered");
            if (applies) unordered.push_back(std::move(parsed));
        }
        if (applies && more.number_tolerance) tolerance = *more.number_tolerance;
    }
    impl::walker w(std::move(ignore), std::move(unordered), tolerance, rules.parse_text_json, rules.max_differences);
    w.walk(before, after);
    return std::move(w.result);
}

MCP_LOADTEST_DECL std::string canonical_json(const json& value) {
    std::string out;
    detail::json_diff_impl::canonical_plain(out, value);
    return out;
}

MCP_LOADTEST_DECL std::string to_string(const json_difference& d) {
    namespace impl = detail::json_diff_impl;
    std::string line = d.pointer.empty() ? std::string("(the whole value)") : d.pointer;
    line += ": ";
    line += to_string(d.kind);
    line += ' ';
    switch (d.kind) {
        case difference_kind::added: line += impl::value_text(d.after); break;
        case difference_kind::removed: line += impl::value_text(d.before); break;
        case difference_kind::type_changed:
            line += impl::value_text(d.before) + " (" + std::string(impl::type_name(d.before)) + ") -> " +
                    impl::value_text(d.after) + " (" + std::string(impl::type_name(d.after)) + ")";
            break;
        default: line += impl::value_text(d.before) + " -> " + impl::value_text(d.after); break;
    }
    return line;
}

MCP_LOADTEST_DECL std::string to_string(const json_diff& diff) {
    std::string text;
    for (const auto& d : diff.differences) {
        text += to_string(d);
        text += '\n';
    }
    if (diff.not_shown > 0)
        text += "... and " + std::to_string(diff.not_shown) + " more difference" + (diff.not_shown == 1 ? "" : "s") +
                " (diff_rules::max_differences is " + std::to_string(diff.differences.size()) + ")\n";
    return text;
}

}  // namespace mcp_loadtest
