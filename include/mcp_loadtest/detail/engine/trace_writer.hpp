// The per-call trace of a run (docs/load-testing.md#the-per-call-trace): one
// JSON line per call and per process sample.
//
// The hot path (write_call, on the run's I/O thread) only appends a fixed-size
// binary record to the current block: numbers as they are, tool, method and
// step names interned once per run (a record holds their ids), and a copy of the
// message only for a call that did not end ok. Full blocks go to a background
// thread that formats them to JSON lines (no JSON library, no printf for the
// common numbers) and writes them to the file, block by block.
//
// The formatter runs at the lowest priority (Linux: nice 19), so the trace
// spends CPU time the run and the server under test leave idle instead of
// competing with them: on a two-core machine at ~700k calls/s, formatting at
// normal priority cost 5-14 % of run()'s throughput. Memory stays bounded: at
// most `max_blocks` blocks exist. When all are queued, the machine has no idle
// CPU to give, and the writer escalates for the rest of the run: a second
// formatter at normal priority takes the queue over (as the formatter always
// ran before), while the starved one finishes the block it holds; the new
// one's text waits in memory (up to `pending_limit`) until that block is
// written, so the run's thread never waits for a starved thread. close()
// formats what is left on the run's thread and returns when the file is
// complete. An I/O error stops the writing (failed() says so) but never the
// run; without threads the run's thread formats everything itself.
//
// The output is byte for byte what printf("%.6f"/"%.3f") of the documented
// values gives (bench/bench_trace_writer.cpp checks it against the previous,
// snprintf-based writer).
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/os/this_thread.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
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
    /// queued ones and the one being formatted): ~5.8 MB of records in all,
    /// ~65k calls for the low-priority formatter to catch up on.
    static constexpr std::size_t block_records = 4096;
    static constexpr std::size_t max_blocks = 16;

    explicit trace_writer(const std::filesystem::path& path) {
        std::error_code ec;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        out_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
        if (!out_)
            throw std::runtime_error("mcp_loadtest::run: cannot write the trace to '" + path.string() +
                                     "'. Hint: check the directory exists and is writable, or leave trace_path empty.");
        current_ = std::make_unique<block>();
        blocks_ = 1;
        formatter_.allocate(text_capacity);
        try {
            idle_formatter_ = std::thread([this] { format_loop(formatter_); });
        } catch (const std::system_error&) {
            take_over();  // no thread: full blocks are formatted here
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
        rec.redirects = r.redirects;
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
        if (++current_->size == block_records) submit();
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
        if (++current_->size == block_records) submit();
    }

    /// Formats and writes everything written so far and closes the file: the
    /// trace is complete when this returns. Later writes are ignored.
    void close() {
        if (closed_) return;
        closed_ = true;
        if (escalated_) {  // the normal-priority formatter writes the rest and ends
            {
                std::lock_guard lock(mutex_);
                if (current_->size != 0) queue_.push_back(std::move(current_));
                closing_ = true;
            }
            work_.notify_all();
            busy_formatter_.join();
        } else {  // the rest is formatted here, not left to a thread at the lowest priority
            if (taken_over_)
                format_block(*current_, own_);
            else
                take_over();
            join_idle_formatter();
            flush(own_);
        }
        if (out_.is_open()) {
            out_.flush();
            if (!out_) failed_ = true;
            out_.close();
        }
    }

    /// An I/O error stopped the writing: the trace is incomplete.
    [[nodiscard]] bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

    /// The idle-priority formatter fell behind and a normal-priority one took
    /// over (for benchmarks and tests).
    [[nodiscard]] bool escalated() const noexcept { return escalated_; }

    /// Waits until every full block handed over so far is formatted and
    /// written (for benchmarks and tests; the run never needs it).
    void wait_idle() {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return queue_.empty() && busy_ == 0; });
    }

private:
    enum class record_kind : std::uint8_t { call, sample };
    static constexpr std::uint32_t no_name = 0xffffffffu;
    static constexpr std::size_t text_capacity = 1 << 20;  // formatted text written per chunk
    static constexpr std::size_t pending_limit = 16 << 20;  // the run's text held while the formatter finishes

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
        std::uint16_t redirects;  // HTTP redirects the call followed
    };

    struct block {
        std::unique_ptr<record[]> records{new record[block_records]};
        std::size_t size = 0;
        std::string messages;            // the messages of this block's failed calls
        std::vector<std::string> names;  // names interned while this block filled, in id order
        std::uint32_t first_name = 0;    // the id of names[0]
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

    /// What formatting needs: the escaped names by id and the text not yet
    /// written. One for the formatter thread, one for the run's thread.
    struct formatting {
        std::vector<std::string> names;
        std::unique_ptr<char[]> text;
        std::size_t size = 0;
        std::size_t capacity = 0;
        void allocate(std::size_t n) {
            auto bigger = std::make_unique<char[]>(n);
            if (size) std::memcpy(bigger.get(), text.get(), size);
            text = std::move(bigger);
            capacity = n;
        }
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
            if (current_->names.empty()) current_->first_name = id;
            current_->names.emplace_back(name);
        }
        last.name.assign(name);
        last.id = id;
        return id;
    }

    /// Hands the full current block to the formatter and takes an empty one.
    void submit() {
        if (taken_over_) {
            format_block(*current_, own_);
            current_->clear();
            return;
        }
        std::unique_lock lock(mutex_);
        queue_.push_back(std::move(current_));
        work_.notify_all();
        if (free_.empty() && blocks_ < max_blocks) {
            ++blocks_;
            lock.unlock();
            current_ = std::make_unique<block>();
            return;
        }
        if (free_.empty() && !escalated_) {
            lock.unlock();
            escalate();
            if (taken_over_) return;
            lock.lock();
        }
        recycled_.wait(lock, [&] { return !free_.empty(); });
        current_ = std::move(free_.back());
        free_.pop_back();
    }

    /// The idle-priority formatter fell behind: it finishes its block and ends,
    /// and a formatter at normal priority (a new thread inherits ours) takes
    /// the queue, with every name interned so far.
    void escalate() {
        {
            std::lock_guard lock(mutex_);
            retiring_ = true;
        }
        work_.notify_all();
        start_own_formatting();
        try {
            busy_formatter_ = std::thread([this] { format_loop(own_); });
            escalated_ = true;
        } catch (const std::system_error&) {
            take_over();
        }
    }

    /// This (the run's) thread formats from now on: the queued blocks and the
    /// current one now, later ones as they fill.
    void take_over() {
        std::deque<std::unique_ptr<block>> queued;
        {
            std::lock_guard lock(mutex_);
            retiring_ = true;
            queued.swap(queue_);
            free_.clear();
        }
        work_.notify_all();
        if (!idle_formatter_.joinable()) formatter_done_ = true;  // none ever wrote
        start_own_formatting();
        taken_over_ = true;
        for (const auto& b : queued) format_block(*b, own_);
        if (!current_) {
            current_ = queued.empty() ? std::make_unique<block>() : std::move(queued.back());
        } else {
            format_block(*current_, own_);
        }
        current_->clear();
    }

    void start_own_formatting() {
        if (own_.capacity != 0) return;
        own_.allocate(text_capacity);
        own_.names.resize(ids_.size());  // every name so far, whichever block holds it
        for (const auto& [name, id] : ids_) append_json_string(own_.names[id], name);
    }

    /// Called by whichever thread formats with own_ (its text comes after the
    /// idle formatter's).
    void join_idle_formatter() {
        if (idle_formatter_.joinable()) idle_formatter_.join();
    }

    // ---- the formatters' side -----------------------------------------------------

    /// One formatter thread: the idle one (formatter_) until retiring_, the
    /// escalated one (own_) until closing_ and nothing is queued.
    void format_loop(formatting& f) {
        const bool idle = &f == &formatter_;
        if (idle) lower_this_thread_priority();
        std::unique_lock lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return (idle && retiring_) || !queue_.empty() || closing_; });
            if (idle && retiring_) break;
            if (queue_.empty()) break;  // closing
            auto b = std::move(queue_.front());
            queue_.pop_front();
            ++busy_;
            const bool more = !queue_.empty();
            lock.unlock();
            format_block(*b, f);
            if (!more && may_write(f)) flush(f);
            b->clear();
            lock.lock();
            --busy_;
            free_.push_back(std::move(b));
            recycled_.notify_one();
            if (queue_.empty() && busy_ == 0) idle_.notify_all();
        }
        lock.unlock();
        if (!idle) join_idle_formatter();
        flush(f);
        if (idle) formatter_done_.store(true, std::memory_order_release);
        idle_.notify_all();
    }

    void format_block(const block& b, formatting& f) noexcept {
        try {
            for (std::size_t i = 0; i < b.names.size(); ++i) {
                if (b.first_name + i < f.names.size()) continue;  // take_over() has it
                std::string escaped;
                append_json_string(escaped, b.names[i]);
                f.names.push_back(std::move(escaped));
            }
            for (std::size_t i = 0; i < b.size; ++i) {
                const record& r = b.records[i];
                if (r.kind == record_kind::call)
                    format_call(r, b, f);
                else
                    format_sample(r, f);
            }
        } catch (...) {
            failed_ = true;
        }
    }

    /// The formatter thread writes its text whenever it likes; the run's thread
    /// only once the formatter has written its last (its text comes after).
    bool may_write(const formatting& f) const noexcept {
        return &f == &formatter_ || formatter_done_.load(std::memory_order_acquire);
    }

    char* reserve(formatting& f, std::size_t n) {
        if (f.size + n > f.capacity) {
            if (may_write(f)) {
                flush(f);
            } else if (f.capacity < pending_limit) {
                f.allocate(std::max(f.capacity * 2, f.size + n));
            } else {
                join_idle_formatter();
                flush(f);
            }
        }
        if (n > f.capacity) throw std::length_error("trace line too long");
        return f.text.get() + f.size;
    }

    void flush(formatting& f) noexcept {
        if (f.size != 0 && !failed()) {
            try {
                out_.write(f.text.get(), static_cast<std::streamsize>(f.size));
                if (!out_) failed_ = true;
            } catch (...) {
                failed_ = true;
            }
        }
        f.size = 0;
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

    void format_call(const record& r, const block& b, formatting& f) {
        const std::string_view method = f.names[r.method];
        const std::string_view tool = f.names[r.tool];
        const std::string_view step = r.step == no_name ? std::string_view() : std::string_view(f.names[r.step]);
        std::string message;
        if (r.message_size) append_json_string(message, std::string_view(b.messages).substr(r.message_offset, r.message_size));
        char* p = reserve(f, 400 + method.size() + tool.size() + step.size() + message.size());
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
        if (r.redirects) {
            p = put(p, R"(,"redirects":)");
            p = put_uint(p, r.redirects);
        }
        if (!message.empty()) {
            p = put(p, R"(,"message":)");
            p = put(p, message);
        }
        p = put(p, "}\n");
        f.size += static_cast<std::size_t>(p - begin);
    }

    void format_sample(const record& r, formatting& f) {
        char* p = reserve(f, 256);
        const int n = std::snprintf(
            p, 256,
            R"({"ts":%.6f,"kind":"process_sample","session":%zu,"pid":%d,"rss_mb":%.3f,"cpu_pct":%.1f,"open_fds":%u,"threads":%u})"
            "\n",
            std::chrono::duration<double>(std::chrono::nanoseconds(r.at)).count(), static_cast<std::size_t>(r.session),
            static_cast<int>(r.error_code), r.rss_mb, r.cpu_pct, static_cast<unsigned>(r.iteration),
            static_cast<unsigned>(r.request_id));
        if (n > 0) f.size += std::min<std::size_t>(static_cast<std::size_t>(n), 255);
    }

    // The hot path's state (the run's thread only).
    std::unique_ptr<block> current_;
    std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> ids_;
    last_name cache_[3];  // method, tool, step
    bool closed_ = false;
    bool escalated_ = false;   // busy_formatter_ formats (escalate())
    bool taken_over_ = false;  // this thread formats (take_over())

    // Shared, under mutex_.
    std::mutex mutex_;
    std::condition_variable work_, recycled_, idle_;
    std::deque<std::unique_ptr<block>> queue_;
    std::vector<std::unique_ptr<block>> free_;
    std::size_t blocks_ = 0;
    bool retiring_ = false;  // the idle formatter ends after its current block
    bool closing_ = false;   // the escalated one ends when nothing is queued
    int busy_ = 0;           // blocks being formatted
    std::atomic<bool> failed_{false};
    std::atomic<bool> formatter_done_{false};  // the idle formatter wrote its last text

    // The idle formatter's text, then the escalated formatter's or this thread's
    // (own_), written once the first is done: the file is in call order.
    formatting formatter_;
    formatting own_;

    std::ofstream out_;
    std::thread idle_formatter_;
    std::thread busy_formatter_;
};

}  // namespace mcp_loadtest::detail
