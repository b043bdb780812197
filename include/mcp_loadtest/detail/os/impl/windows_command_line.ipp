// Definitions of detail/os/windows_command_line.hpp (header-only: included by it;
// separate compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/windows_command_line.hpp>

#include <algorithm>
#include <cctype>

namespace mcp_loadtest::detail {

namespace windows_text {

inline bool iequal(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

inline bool ends_with_i(std::string_view s, std::string_view tail) noexcept {
    return s.size() >= tail.size() && iequal(s.substr(s.size() - tail.size()), tail);
}

// CommandLineToArgvW's quoting, always in quotes.
inline std::string quoted(std::string_view arg) {
    std::string out = "\"";
    std::size_t backslashes = 0;
    for (char c : arg) {
        if (c == '\\') {
            ++backslashes;
            continue;
        }
        // Backslashes are literal unless a quote follows: then each must be doubled.
        out.append(c == '"' ? backslashes * 2 + 1 : backslashes, '\\');
        backslashes = 0;
        out += c;
    }
    out.append(backslashes * 2, '\\');  // before the closing quote
    return out + "\"";
}

inline std::vector<std::string_view> split_list(std::string_view list) {
    std::vector<std::string_view> out;
    while (!list.empty()) {
        const auto semi = list.find(';');
        const auto item = list.substr(0, semi);
        if (!item.empty()) out.push_back(item);
        if (semi == std::string_view::npos) break;
        list.remove_prefix(semi + 1);
    }
    return out;
}

}  // namespace windows_text

MCP_LOADTEST_DECL std::string quote_windows_argument(std::string_view arg) {
    if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string_view::npos) return std::string(arg);
    return windows_text::quoted(arg);
}

MCP_LOADTEST_DECL std::string windows_command_line(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        out += quote_windows_argument(a);
    }
    return out;
}

MCP_LOADTEST_DECL std::optional<std::string> batch_command_line(std::string_view cmd_exe, std::string_view script,
                                                                const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a.find_first_of("%!\"\r\n") != std::string::npos) return std::nullopt;
    // /d: no AutoRun commands; /s /c "...": cmd strips exactly the outer quotes, so the
    // script's own quotes survive. Arguments are quoted as the script's %1.. read them.
    std::string line = quote_windows_argument(cmd_exe) + " /d /s /c \"\"" + std::string(script) + "\"";
    for (const auto& a : args) {
        // Outside quotes cmd.exe would read & | < > ^ ( ) itself: quote every argument that has one.
        line += ' ';
        line += a.find_first_of("&|<>^()") != std::string::npos ? windows_text::quoted(a) : quote_windows_argument(a);
    }
    return line + "\"";
}

MCP_LOADTEST_DECL bool is_batch_file(std::string_view path) {
    return windows_text::ends_with_i(path, ".cmd") || windows_text::ends_with_i(path, ".bat");
}

MCP_LOADTEST_DECL std::optional<std::string> resolve_windows_command(
    std::string_view command, std::string_view path_list, std::string_view pathext,
    const std::function<bool(const std::string&)>& is_file) {
    if (command.empty()) return std::nullopt;
    const auto extensions = windows_text::split_list(pathext);
    const auto try_name = [&](const std::string& base) -> std::optional<std::string> {
        const bool has_listed_extension = std::any_of(extensions.begin(), extensions.end(), [&](std::string_view e) {
            return windows_text::ends_with_i(base, e);
        });
        if (has_listed_extension && is_file(base)) return base;
        for (const auto e : extensions)
            if (std::string candidate = base + std::string(e); is_file(candidate)) return candidate;
        return std::nullopt;
    };
    if (command.find_first_of("/\\:") != std::string_view::npos) return try_name(std::string(command));
    for (const auto dir : windows_text::split_list(path_list)) {
        std::string base(dir);
        if (base.back() != '\\' && base.back() != '/') base += '\\';
        if (auto found = try_name(base + std::string(command))) return found;
    }
    return std::nullopt;
}

}  // namespace mcp_loadtest::detail
