// Definitions of detail/text/command_text.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/text/command_text.hpp>

namespace mcp_loadtest::detail {

namespace command_text {

inline bool shell_safe(unsigned char c) noexcept {
    if (c >= 0x80) return true;  // UTF-8: no meaning to a shell
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("_@%+=:,./\\-[]").find(static_cast<char>(c)) != std::string_view::npos;
}

inline std::string shell_quoted(std::string_view word) {
    bool plain = !word.empty();
    for (unsigned char c : word) plain = plain && shell_safe(c);
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Cut at `n` bytes, never inside a UTF-8 character, marked with "...".
inline std::string cut(std::string s, std::size_t n) {
    if (s.size() <= n) return s;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s.resize(n);
    return s + "...";
}

// A file path (not a URL, not an npm scope like @scope/name) with a file name at its end.
inline bool is_path(std::string_view w) noexcept {
    if (w.empty() || w.front() == '@' || w.front() == '-' || w.find("://") != std::string_view::npos) return false;
    const auto last = w.find_last_of("/\\");
    return last != std::string_view::npos && last + 1 < w.size();
}

inline std::string_view file_name(std::string_view w) noexcept { return w.substr(w.find_last_of("/\\") + 1); }

}  // namespace command_text

MCP_LOADTEST_DECL std::string join_command(const std::vector<std::string>& args, std::size_t max_chars) {
    std::string out;
    for (std::string arg : args) {
        for (char& c : arg)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
        if (!out.empty()) out += ' ';
        out += command_text::shell_quoted(arg);
        if (out.size() > max_chars) break;
    }
    return command_text::cut(std::move(out), max_chars);
}

MCP_LOADTEST_DECL std::vector<std::string> split_command(std::string_view command) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (c == ' ' || c == '\t') {
            if (in_word) words.push_back(std::move(word));
            word.clear();
            in_word = false;
        } else if (c == '\'') {
            const auto close = command.find('\'', i + 1);
            const auto end = close == std::string_view::npos ? command.size() : close;
            word.append(command.substr(i + 1, end - i - 1));
            i = end;
            in_word = true;
        } else if (c == '\\' && i + 1 < command.size() && command[i + 1] == '\'') {  // join_command writes ' as '\'' (this is its \')
            word += command[++i];
            in_word = true;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(std::move(word));
    return words;
}

MCP_LOADTEST_DECL std::string short_command(std::string_view command, std::size_t max_chars) {
    using namespace command_text;
    const auto words = split_command(command);
    if (words.empty()) return cut(std::string(command), max_chars);
    // Each word as shown: the program by its file name, a long path by ".../" and
    // its file name, any other long word by its head.
    constexpr std::size_t long_word = 40;
    std::vector<std::string> shown;
    std::size_t script = 0;  // the first path argument (0: none)
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        const bool path = is_path(w);
        if (path && i > 0 && script == 0) script = i;
        std::string s = i == 0 && path ? std::string(file_name(w))
                        : path && w.size() > long_word / 2 ? ".../" + std::string(file_name(w))
                                                           : w;
        shown.push_back(shell_quoted(cut(std::move(s), long_word)));
    }
    const auto joined = [&](const std::vector<std::size_t>& picked) {
        std::string out;
        std::size_t previous = 0;
        for (std::size_t k = 0; k < picked.size(); ++k) {
            if (k > 0) out += picked[k] == previous + 1 ? " " : " ... ";
            out += shown[picked[k]];
            previous = picked[k];
        }
        if (!picked.empty() && picked.back() + 1 < shown.size()) out += " ...";
        return out;
    };
    std::vector<std::size_t> all(shown.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    if (std::string everything = joined(all); everything.size() <= max_chars) return everything;

    // Too long: the program, the script, then the last words that fit.
    std::vector<std::size_t> head{0};
    if (script != 0) head.push_back(script);
    std::vector<std::size_t> tail;
    for (std::size_t i = shown.size() - 1; i > head.back(); --i) {
        std::vector<std::size_t> trial = head;
        trial.push_back(i);
        trial.insert(trial.end(), tail.rbegin(), tail.rend());
        if (joined(trial).size() > max_chars) break;
        tail.push_back(i);
    }
    head.insert(head.end(), tail.rbegin(), tail.rend());
    return cut(joined(head), max_chars);
}

}  // namespace mcp_loadtest::detail
