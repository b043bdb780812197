// The per-call trace of a run (docs/load-testing.md#the-per-call-trace): one
// JSON line per call and per process sample.
//
// The hot path (write_call, on the run's I/O thread) only appends a fixed-size
// binary record to the current block: numbers as they are, tool, method and
// step names interned once per run (a record holds their ids), and a copy of the
// message only for a call that did not end ok. Full blocks go to a background
// thread that formats them to JSON lines (no JSON library, no printf for the
// common numbers) and writes them to the file, block by block. Memory is
// bounded: at most `max_blocks` blocks exist; when all are queued, write_call
// waits for the formatter (it formats several million events per second, far
// more than any run produces). An I/O error stops the writing (failed() says
// so) but never the run; a thread that cannot be started makes the writer
// format each full block itself. close() returns when the file is complete.
//
// The output is byte for byte what printf("%.6f"/"%.3f") of the documented
// values gives (bench/bench_trace_writer.cpp checks it against the previous,
// snprintf-based writer).
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/format.hpp>
#include <mcp_loadtest/detail/jsonrpc_writer.hpp>
#include <mcp_loadtest/process_sampling.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

class trace_writer {
public:
    /// Records per block, and blocks in existence at most (the current one, the
    /// queued ones and the one being formatted): ~2 MB of records in all.
    static constexpr std::size_t block_records = 4096;
    static constexpr std::size_t max_blocks = 6;

    explicit trace_writer(const std::filesystem::path& path) {
        std::error_code ec;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        out_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
        if (!out_)
            throw std::runtime_error("mcp_loadtest::run: cannot write the trace to '" + path.string() +
                                     "'. Hint: check the directory exists and is writable, or leave trace_path empty.");
        text_ = std::make_unique<char[]>(text_capacity);
        current_ = std::make_unique<block>();
        blocks_ = 1;
        try {
            thread_ = std::thread([this] { format_loop(); });
        } catch (const std::system_error&) {
            // No thread: full blocks are formatted by the caller (see submit()).
        }
    }

    trace_writer(const trace_writer&) = delete;
    trace_writer& operator=(const trace_writer&) = delete;

    ~trace_writer() {
        try {
            close();
        } catch (...) {
        }
    }

    /// A call that ended `at` after the start of the run.
    void write_call(std::chrono::nanoseconds at, std::size_t session, std::uint64_t iteration, const call_result& r,
                    std::string_view step, std::chrono::nanoseconds latency) {
        if (closed_) return;
        record& rec = current_->records[current_->size];
        rec.kind = record_kind::call;
        rec.outcome = r.outcome;
        rec.at = at.count();
        rec.session = session;
        rec.iteration = iteration;
        rec.request_id = r.request_id;
        rec.duration = r.duration.count();
        rec.latency = latency.count();
        rec.error_code = r.error_code;
        rec.method = intern(cache_[0], r.method);
        rec.tool = intern(cache_[1], r.tool);
        rec.step = step.empty() ? no_name : intern(cache_[2], step);
        if (!r.ok() && !r.message.empty()) {
            const std::string_view m = std::string_view(r.message).substr(0, 300);
            rec.message_offset = static_cast<std::uint32_t>(current_->messages.size());
            rec.message_size = static_cast<std::uint32_t>(m.size());
            current_->messages.append(m);
        } else {
            rec.message_size = 0;
        }
        if (++current_->size == block_records) submit(false);
    }

    /// A process sample (`s.at` counted from the sampler's start).
    void write_sample(std::size_t session, const process_sample& s) {
        if (closed_) return;
        record& rec = current_->records[current_->size];
        rec.kind = record_kind::sample;
        rec.at = s.at.count();
        rec.session = session;
        rec.iteration = s.open_fds;
        rec.request_id = s.threads;
        rec.error_code = static_cast<std::int64_t>(s.pid);
        rec.rss_mb = s.rss_mb;
        rec.cpu_pct = s.cpu_pct;
        if (++current_->size == block_records) submit(false);
    }

    /// Formats and writes everything written so far and closes the file: the
    /// trace is complete when this returns. Later writes are ignored.
    void close() {
        if (closed_) return;
        closed_ = true;
        submit(true);
        if (thread_.joinable()) {
            {
                std::lock_guard lock(mutex_);
                stopping_ = true;
            }
            work_.notify_one();
            thread_.join();
        }
        if (out_.is_open()) {
            out_.flush();
            if (!out_) failed_ = true;
            out_.close();
        }
    }

    /// An I/O error stopped the writing: the trace is incomplete.
    [[nodiscard]] bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

    /// Waits until every full block handed over so far is formatted and
    /// written (for benchmarks and tests; the run never needs it).
    void wait_idle() {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
    }

private:
    enum class record_kind : std::uint8_t { call, sample };
    static constexpr std::uint32_t no_name = 0xffffffffu;
    static constexpr std::size_t text_capacity = 1 << 20;  // formatted text written per chunk

    struct record {
        std::int64_t at;          // ns since the run's (sampler's) start
        std::uint64_t session;
        std::uint64_t iteration;  // sample: open_fds
        std::uint64_t request_id; // sample: threads
        std::int64_t duration;    // ns
        std::int64_t latency;     // ns
        std::int64_t error_code;  // sample: pid
        double rss_mb;
        double cpu_pct;
        std::uint32_t method, tool, step;  // interned names; step: no_name when empty
        std::uint32_t message_offset, message_size;
        record_kind kind;
        mcp_loadtest::outcome outcome;
    };

    struct block {
        std::unique_ptr<record[]> records{new record[block_records]};
        std::size_t size = 0;
        std::string messages;            // the messages of this block's failed calls
        std::vector<std::string> names;  // names interned while this block filled, in id order
        void clear() {
            size = 0;
            messages.clear();
            names.clear();
        }
    };

    struct string_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };

    struct last_name {
        std::string name;
        std::uint32_t id = no_name;
    };

    // ---- the hot path's side ------------------------------------------------------

    std::uint32_t intern(last_name& last, std::string_view name) {
        if (last.id != no_name && name == last.name) return last.id;
        std::uint32_t id;
        if (const auto found = ids_.find(name); found != ids_.end()) {
            id = found->second;
        } else {
            id = static_cast<std::uint32_t>(ids_.size());
            ids_.emplace(std::string(name), id);
            current_->names.emplace_back(name);
        }
        last.name.assign(name);
        last.id = id;
        return id;
    }

    /// Hands the current block to the formatter and takes an empty one (unless
    /// `last`). Waits only when all `max_blocks` blocks are queued.
    void submit(bool last) {
        if (!thread_.joinable()) {  // no formatter thread: format here
            format_block(*current_);
            current_->clear();
            if (last) flush_text();
            return;
        }
        std::unique_lock lock(mutex_);
        if (current_->size != 0 || !current_->names.empty()) queue_.push_back(std::move(current_));
        work_.notify_one();
        if (last) return;
        if (!free_.empty()) {
            current_ = std::move(free_.back());
            free_.pop_back();
        } else if (blocks_ < max_blocks) {
            ++blocks_;
            lock.unlock();
            current_ = std::make_unique<block>();
        } else {
            recycled_.wait(lock, [&] { return !free_.empty(); });
            current_ = std::move(free_.back());
            free_.pop_back();
        }
    }

    // ---- the formatter's side -----------------------------------------------------

    void format_loop() {
        std::unique_lock lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) break;  // stopping, and everything is written
            auto b = std::move(queue_.front());
            queue_.pop_front();
            busy_ = true;
            lock.unlock();
            format_block(*b);
            if (queue_empty_hint()) flush_text();
            b->clear();
            lock.lock();
            busy_ = false;
            free_.push_back(std::move(b));
            recycled_.notify_one();
            if (queue_.empty()) idle_.notify_all();
        }
        lock.unlock();
        flush_text();
        idle_.notify_all();
    }

    bool queue_empty_hint() {
        std::lock_guard lock(mutex_);
        return queue_.empty();
    }

    void format_block(const block& b) noexcept {
        try {
            for (const auto& n : b.names) {
                std::string escaped;
                append_json_string(escaped, n);
                names_.push_back(std::move(escaped));
            }
            for (std::size_t i = 0; i < b.size; ++i) {
                const record& r = b.records[i];
                if (r.kind == record_kind::call)
                    format_call(r, b);
                else
                    format_sample(r);
            }
        } catch (...) {
            failed_ = true;
        }
    }

    char* reserve(std::size_t n) {
        if (text_size_ + n > text_capacity) flush_text();
        if (n > text_capacity) throw std::length_error("trace line too long");
        return text_.get() + text_size_;
    }

    void flush_text() noexcept {
        if (text_size_ != 0 && !failed()) {
            try {
                out_.write(text_.get(), static_cast<std::streamsize>(text_size_));
                if (!out_) failed_ = true;
            } catch (...) {
                failed_ = true;
            }
        }
        text_size_ = 0;
    }

    template <std::size_t N>
    static char* put(char* p, const char (&literal)[N]) noexcept {
        std::memcpy(p, literal, N - 1);
        return p + N - 1;
    }
    static char* put(char* p, std::string_view s) noexcept {
        std::memcpy(p, s.data(), s.size());
        return p + s.size();
    }
    static char* put_uint(char* p, std::uint64_t v) noexcept { return std::to_chars(p, p + 20, v).ptr; }

    /// `ns` in microseconds, rounded, as printf("%.6f", ns / 1e9) (decimals 6)
    /// or printf("%.3f", ns / 1e6) (decimals 3) prints the double: exact when
    /// 0 <= ns < 2^50 and ns is not halfway between two microseconds (the
    /// double's error is then far from the rounding boundary); otherwise printf.
    static char* put_fixed(char* p, std::int64_t ns, int decimals) noexcept {
        if (ns >= 0 && ns < (std::int64_t{1} << 50) && ns % 1000 != 500) {
            const auto us = static_cast<std::uint64_t>((ns + 500) / 1000);
            const std::uint64_t scale = decimals == 6 ? 1000000 : 1000;
            p = put_uint(p, us / scale);
            *p++ = '.';
            std::uint64_t frac = us % scale;
            for (int i = decimals - 1; i >= 0; --i) {
                p[i] = static_cast<char>('0' + frac % 10);
                frac /= 10;
            }
            return p + decimals;
        }
        const int n = decimals == 6
                          ? std::snprintf(p, 64, "%.6f", std::chrono::duration<double>(std::chrono::nanoseconds(ns)).count())
                          : std::snprintf(p, 64, "%.3f", ms(std::chrono::nanoseconds(ns)));
        return p + (n > 0 ? std::min(n, 63) : 0);
    }

    void format_call(const record& r, const block& b) {
        const std::string_view method = names_[r.method];
        const std::string_view tool = names_[r.tool];
        const std::string_view step = r.step == no_name ? std::string_view() : std::string_view(names_[r.step]);
        std::string message;
        if (r.message_size) append_json_string(message, std::string_view(b.messages).substr(r.message_offset, r.message_size));
        char* p = reserve(400 + method.size() + tool.size() + step.size() + message.size());
        char* const begin = p;
        p = put(p, R"({"ts":)");
        p = put_fixed(p, r.at, 6);
        p = put(p, R"(,"kind":"call","session":)");
        p = put_uint(p, r.session);
        p = put(p, R"(,"iteration":)");
        p = put_uint(p, r.iteration);
        p = put(p, R"(,"request_id":)");
        p = put_uint(p, r.request_id);
        p = put(p, R"(,"method":)");
        p = put(p, method);
        p = put(p, R"(,"tool":)");
        p = put(p, tool);
        if (!step.empty()) {
            p = put(p, R"(,"step":)");
            p = put(p, step);
        }
        p = put(p, R"(,"outcome":")");
        p = put(p, to_string(r.outcome));
        p = put(p, R"(","duration_ms":)");
        p = put_fixed(p, r.duration, 3);
        p = put(p, R"(,"latency_ms":)");
        p = put_fixed(p, r.latency, 3);
        if (r.error_code) {
            p = put(p, R"(,"error_code":)");
            p = std::to_chars(p, p + 21, r.error_code).ptr;
        }
        if (!message.empty()) {
            p = put(p, R"(,"message":)");
            p = put(p, message);
        }
        p = put(p, "}\n");
        text_size_ += static_cast<std::size_t>(p - begin);
    }

    void format_sample(const record& r) {
        char* p = reserve(256);
        const int n = std::snprintf(
            p, 256,
            R"({"ts":%.6f,"kind":"process_sample","session":%zu,"pid":%d,"rss_mb":%.3f,"cpu_pct":%.1f,"open_fds":%u,"threads":%u})"
            "\n",
            std::chrono::duration<double>(std::chrono::nanoseconds(r.at)).count(), static_cast<std::size_t>(r.session),
            static_cast<int>(r.error_code), r.rss_mb, r.cpu_pct, static_cast<unsigned>(r.iteration),
            static_cast<unsigned>(r.request_id));
        if (n > 0) text_size_ += std::min<std::size_t>(static_cast<std::size_t>(n), 255);
    }

    // The hot path's state (the run's thread only).
    std::unique_ptr<block> current_;
    std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> ids_;
    last_name cache_[3];  // method, tool, step
    bool closed_ = false;

    // Shared, under mutex_.
    std::mutex mutex_;
    std::condition_variable work_, recycled_, idle_;
    std::deque<std::unique_ptr<block>> queue_;
    std::vector<std::unique_ptr<block>> free_;
    std::size_t blocks_ = 0;
    bool stopping_ = false;
    bool busy_ = false;
    std::atomic<bool> failed_{false};

    // The formatter's state (its thread, or the run's when there is none).
    std::vector<std::string> names_;  // escaped, by id
    std::unique_ptr<char[]> text_;
    std::size_t text_size_ = 0;
    std::ofstream out_;
    std::thread thread_;
};

}  // namespace mcp_loadtest::detail
