// Definitions of detail/os/atomic_file.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/atomic_file.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::filesystem::path temporary_sibling(const std::filesystem::path& target) {
    static std::atomic<unsigned> counter{0};
    auto tmp = target;
    tmp += ".tmp-" + std::to_string(this_process_id()) + "-" + std::to_string(counter++);
    return tmp;
}

MCP_LOADTEST_DECL void write_file_atomically(const std::filesystem::path& target, std::string_view text) {
    const auto tmp = temporary_sibling(target);
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f)
        throw std::runtime_error("cannot create '" + tmp.string() + "': " + std::strerror(errno) +
                                 ". Check that the directory exists and is writable.");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.close();
    if (!f) {
        const int write_errno = errno;
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw std::runtime_error("cannot write '" + tmp.string() + "': " + std::strerror(write_errno) +
                                 " (is the disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + target.string() + "': " + ec.message());
    }
}

MCP_LOADTEST_DECL void replace_symlink(const std::filesystem::path& link, const std::filesystem::path& target) {
    namespace fs = std::filesystem;
    const auto tmp = temporary_sibling(link);
    std::error_code ec;
    fs::create_directory_symlink(target, tmp, ec);
    if (!ec) {
        fs::rename(tmp, link, ec);
        if (ec && fs::is_directory(fs::symlink_status(link))) {  // a copy from an earlier fallback
            std::error_code ignored;
            fs::remove_all(link, ignored);
            fs::rename(tmp, link, ec);
        }
        if (!ec) return;
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot point '" + link.string() + "' at '" + target.string() + "'");
    }
    fs::copy(link.parent_path() / target, tmp, fs::copy_options::recursive, ec);
    if (ec) throw std::runtime_error("cannot link or copy '" + target.string() + "' to '" + link.string() + "': " +
                                     ec.message());
    std::error_code ignored;
    fs::remove_all(link, ignored);
    fs::rename(tmp, link, ec);
    if (ec) throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + link.string() + "': " + ec.message());
}

}  // namespace mcp_loadtest::detail
