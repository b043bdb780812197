// Definitions of detail/text/interpreter_text.hpp (header-only: included by it;
// separate compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/text/interpreter_text.hpp>

#include <algorithm>
#include <cctype>
#include <functional>

namespace mcp_loadtest::detail {

namespace interpreter_text {

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

inline bool digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A partial version: "18", "18.2", "18.2.3", "18.x", "*" (given: how many parts are numbers).
struct partial {
    int part[3] = {0, 0, 0};
    int given = 0;
};

inline std::optional<partial> parse_partial(std::string_view s) {
    if (!s.empty() && (s.front() == 'v' || s.front() == 'V' || s.front() == '=')) s.remove_prefix(1);
    if (const auto cut = s.find_first_of("-+"); cut != std::string_view::npos) s = s.substr(0, cut);
    partial p;
    if (s.empty()) return p;
    bool wild = false;
    for (int i = 0; i < 3 && !s.empty(); ++i) {
        const auto dot = s.find('.');
        const std::string_view piece = s.substr(0, dot);
        s = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
        if (piece == "x" || piece == "X" || piece == "*") {
            wild = true;
        } else if (digits(piece) && !wild && piece.size() < 9) {
            p.part[i] = std::stoi(std::string(piece));
            p.given = i + 1;
        } else {
            return std::nullopt;
        }
    }
    if (!s.empty()) return std::nullopt;
    return p;
}

inline version_number floor_of(const partial& p) { return {p.part[0], p.part[1], p.part[2]}; }

// The first version above every version `p` matches (p.given >= 1).
inline version_number ceiling_of(const partial& p) {
    if (p.given == 1) return {p.part[0] + 1, 0, 0};
    if (p.given == 2) return {p.part[0], p.part[1] + 1, 0};
    return {p.part[0], p.part[1], p.part[2] + 1};
}

using test = std::function<bool(const version_number&)>;

// One comparator ("op" then a partial version) as a test; nullopt when unreadable.
inline std::optional<test> comparator(std::string_view op, std::string_view text) {
    const auto p = parse_partial(text);
    if (!p) return std::nullopt;
    const version_number lo = floor_of(*p);
    if (p->given == 0) {
        if (op == ">" || op == "<") return test([](const version_number&) { return false; });
        return test([](const version_number&) { return true; });
    }
    const version_number hi = ceiling_of(*p);
    if (op.empty() || op == "=") return test([lo, hi](const version_number& v) { return v >= lo && v < hi; });
    if (op == ">=") return test([lo](const version_number& v) { return v >= lo; });
    if (op == ">") return test([hi](const version_number& v) { return v >= hi; });
    if (op == "<") return test([lo](const version_number& v) { return v < lo; });
    if (op == "<=") return test([hi](const version_number& v) { return v < hi; });
    if (op == "~") {
        const version_number top = p->given == 1 ? version_number{lo.major + 1, 0, 0} : version_number{lo.major, lo.minor + 1, 0};
        return test([lo, top](const version_number& v) { return v >= lo && v < top; });
    }
    if (op == "^") {
        version_number top;
        if (lo.major > 0 || p->given == 1) top = {lo.major + 1, 0, 0};
        else if (lo.minor > 0 || p->given == 2) top = {0, lo.minor + 1, 0};
        else top = {0, 0, lo.patch + 1};
        return test([lo, top](const version_number& v) { return v >= lo && v < top; });
    }
    return std::nullopt;
}

inline std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const std::size_t from = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > from) out.push_back(s.substr(from, i - from));
    }
    return out;
}

// One || alternative: every comparator holds.
inline std::optional<bool> alternative(const version_number& v, std::string_view text) {
    auto w = words(text);
    if (w.size() == 3 && w[1] == "-") {  // hyphen range: a - b
        const auto a = parse_partial(w[0]), b = parse_partial(w[2]);
        if (!a || !b) return std::nullopt;
        if (v < floor_of(*a)) return false;
        if (b->given == 0) return true;
        return b->given == 3 ? v <= floor_of(*b) : v < ceiling_of(*b);
    }
    bool all = true;
    for (std::size_t i = 0; i < w.size(); ++i) {
        std::string_view word = w[i];
        std::size_t op_len = 0;
        while (op_len < word.size() && std::string_view("<>=~^").find(word[op_len]) != std::string_view::npos) ++op_len;
        std::string_view op = word.substr(0, op_len), rest = word.substr(op_len);
        if (rest.empty() && !op.empty() && i + 1 < w.size()) rest = w[++i];  // ">= 18"
        if (op == "~>") op = "~";
        const auto t = comparator(op, rest);
        if (!t) return std::nullopt;
        all = all && (*t)(v);
    }
    return all;
}

}  // namespace interpreter_text

MCP_LOADTEST_DECL std::string_view to_string(interpreter_kind k) noexcept {
    switch (k) {
        case interpreter_kind::none: return "none";
        case interpreter_kind::python: return "python";
        case interpreter_kind::node: return "node";
        case interpreter_kind::uv: return "uv";
        case interpreter_kind::npx: return "npx";
        case interpreter_kind::deno: return "deno";
        case interpreter_kind::bun: return "bun";
    }
    return "none";
}

MCP_LOADTEST_DECL std::string program_name(std::string_view command) {
    const auto slash = command.find_last_of("/\\");
    if (slash != std::string_view::npos) command.remove_prefix(slash + 1);
    std::string name = interpreter_text::lower(command);
    for (const char* ext : {".exe", ".cmd", ".bat"})
        if (name.size() > 4 && name.compare(name.size() - 4, 4, ext) == 0) name.resize(name.size() - 4);
    return name;
}

MCP_LOADTEST_DECL interpreter_kind interpreter_of(std::string_view command) {
    const std::string name = program_name(command);
    if (name == "py" || name == "pythonw" || name.rfind("python", 0) == 0) {
        const std::string_view rest = std::string_view(name).substr(name == "py" ? 2 : 6);
        if (name == "pythonw" || std::all_of(rest.begin(), rest.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
            return interpreter_kind::python;
    }
    if (name == "node" || name == "nodejs") return interpreter_kind::node;
    if (name == "uv" || name == "uvx") return interpreter_kind::uv;
    if (name == "npx") return interpreter_kind::npx;
    if (name == "deno") return interpreter_kind::deno;
    if (name == "bun") return interpreter_kind::bun;
    return interpreter_kind::none;
}

MCP_LOADTEST_DECL bool python_unbuffered_flag(const std::vector<std::string>& args) {
    for (std::size_t k = 0; k < args.size(); ++k) {
        const std::string& a = args[k];
        if (a.size() < 2 || a[0] != '-' || a == "--") return false;  // the script: Python's options end
        if (a[1] == '-') continue;                                     // --long options
        // A cluster of one-letter options, e.g. -Su; -c, -m, -X, -W take a value
        // (the rest of the cluster, or the next argument).
        for (std::size_t i = 1; i < a.size(); ++i) {
            if (a[i] == 'u') return true;
            if (a[i] == 'c' || a[i] == 'm') return false;
            if (a[i] == 'X' || a[i] == 'W') {
                if (i + 1 == a.size()) ++k;
                break;
            }
        }
    }
    return false;
}

MCP_LOADTEST_DECL std::string node_script(const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-e" || a == "--eval" || a == "-p" || a == "--print") return {};
        if (a == "-r" || a == "--require" || a == "--import" || a == "--loader" || a == "--experimental-loader") {
            ++i;
            continue;
        }
        if (a == "--") return i + 1 < args.size() ? args[i + 1] : std::string();
        if (!a.empty() && a[0] == '-') continue;
        return a;
    }
    return {};
}

MCP_LOADTEST_DECL std::string npx_package(const std::vector<std::string>& args) {
    std::string spec;
    for (std::size_t i = 0; i < args.size() && spec.empty(); ++i) {
        const std::string& a = args[i];
        if ((a == "-p" || a == "--package") && i + 1 < args.size()) spec = args[i + 1];
        else if (a.rfind("--package=", 0) == 0) spec = a.substr(10);
        else if (a == "-c" || a == "--call") return {};
        else if (!a.empty() && a[0] != '-') spec = a;
    }
    // "@scope/name@1.2.3", "name@latest": the version follows the last '@' that is not the first character.
    const auto at = spec.find('@', 1);
    if (at != std::string::npos) spec.resize(at);
    return spec;
}

MCP_LOADTEST_DECL std::optional<version_number> find_version(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
        if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) && text[i - 1] != 'v')) continue;
        int part[3] = {0, 0, 0};
        int n = 0;
        std::size_t j = i;
        while (n < 3) {
            const std::size_t from = j;
            while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && j - from < 9) ++j;
            if (j == from) break;
            part[n++] = std::stoi(std::string(text.substr(from, j - from)));
            if (j + 1 < text.size() && text[j] == '.' && std::isdigit(static_cast<unsigned char>(text[j + 1]))) ++j;
            else break;
        }
        if (n >= 2) return version_number{part[0], part[1], part[2]};
        i = j;
    }
    return std::nullopt;
}

MCP_LOADTEST_DECL std::string to_string(const version_number& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

MCP_LOADTEST_DECL std::optional<bool> satisfies_range(const version_number& v, std::string_view range) {
    bool any = false;
    for (std::size_t from = 0; from <= range.size();) {
        auto bar = range.find("||", from);
        if (bar == std::string_view::npos) bar = range.size();
        const auto r = interpreter_text::alternative(v, range.substr(from, bar - from));
        if (!r) return std::nullopt;
        any = any || *r;
        from = bar + 2;
    }
    return any;
}

}  // namespace mcp_loadtest::detail
