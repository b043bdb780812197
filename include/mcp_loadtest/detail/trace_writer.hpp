// The per-call trace of a run (docs/load-testing.md#the-per-call-trace): one
// JSON line per call and per process sample, formatted without a JSON library
// and written in 64 KiB blocks.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/format.hpp>
#include <mcp_loadtest/detail/jsonrpc_writer.hpp>
#include <mcp_loadtest/process_sampling.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

class trace_writer {
public:
    explicit trace_writer(const std::filesystem::path& path) {
        std::error_code ec;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        out_.open(path, std::ios::out | std::ios::trunc);
        if (!out_)
            throw std::runtime_error("mcp_loadtest::run: cannot write the trace to '" + path.string() +
                                     "'. Hint: check the directory exists and is writable, or leave trace_path empty.");
        buffer_.reserve(block);
    }

    /// A call that ended `at` after the start of the run.
    void write_call(std::chrono::nanoseconds at, std::size_t session, std::uint64_t iteration, const call_result& r,
                    std::string_view step, std::chrono::nanoseconds latency) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      R"({"ts":%.6f,"kind":"call","session":%zu,"iteration":%llu,"request_id":%llu,"method":)",
                      std::chrono::duration<double>(at).count(), session, static_cast<unsigned long long>(iteration),
                      static_cast<unsigned long long>(r.request_id));
        buffer_ += buf;
        append_json_string(buffer_, r.method);
        buffer_ += R"(,"tool":)";
        append_json_string(buffer_, r.tool);
        if (!step.empty()) {
            buffer_ += R"(,"step":)";
            append_json_string(buffer_, step);
        }
        std::snprintf(buf, sizeof buf, R"(,"outcome":"%s","duration_ms":%.3f,"latency_ms":%.3f)",
                      std::string(to_string(r.outcome)).c_str(), ms(r.duration), ms(latency));
        buffer_ += buf;
        if (r.error_code) buffer_ += R"(,"error_code":)" + std::to_string(r.error_code);
        if (!r.ok() && !r.message.empty()) {
            buffer_ += R"(,"message":)";
            append_json_string(buffer_, std::string_view(r.message).substr(0, 300));
        }
        buffer_ += "}\n";
        if (buffer_.size() >= block) flush();
    }

    void write_sample(std::size_t session, const process_sample& s) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      R"({"ts":%.6f,"kind":"process_sample","session":%zu,"pid":%d,"rss_mb":%.3f,"cpu_pct":%.1f,"open_fds":%u,"threads":%u})"
                      "\n",
                      std::chrono::duration<double>(s.at).count(), session, static_cast<int>(s.pid), s.rss_mb,
                      s.cpu_pct, s.open_fds, s.threads);
        buffer_ += buf;
        if (buffer_.size() >= block) flush();
    }

    void close() {
        flush();
        out_.flush();
    }

private:
    static constexpr std::size_t block = 1 << 16;
    void flush() {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }

    std::ofstream out_;
    std::string buffer_;
};

}  // namespace mcp_loadtest::detail
