// Incremental Server-Sent Events parser (WHATWG HTML, "event stream interpretation"), for the
// Streamable HTTP and legacy HTTP+SSE transports.
//
// Bytes arrive as HTTP body pieces cut anywhere, so the parser is a byte-level state machine
// that copies each data value once, straight into the event's buffer, and never buffers whole
// lines: comments and unknown fields are skipped without being stored. Events are delivered to
// a callback as views valid during the call. One departure from the spec: bytes are not UTF-8
// decoded (no U+FFFD replacement); the JSON layer sees exactly what the server sent.
#pragma once

#include <mcp_loadtest/detail/wire_text.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail::sse {

enum class errc : std::uint8_t { none, event_too_large };

struct error {
    errc code = errc::none;
    std::string message;
    explicit operator bool() const noexcept { return code != errc::none; }
};

/// One block of fields ended by a blank line. Views are valid during the callback only.
struct event {
    std::string_view type;  // the event field, or "message" when there was none
    std::string_view data;  // the data lines joined with '\n'
    std::string_view id;    // the last event ID after this block (persists across blocks)
    // False when the block had fields but no data line: WHATWG dispatches no event then, but
    // its id still counts. Reported so a caller can count priming events (MCP 2025-11-25 has
    // servers open a stream with an event carrying an id and no data).
    bool has_data = false;
};

class parser {
public:
    static constexpr std::size_t default_max_event_bytes = 64 * 1024 * 1024;

    /// `max_event_bytes` bounds what one block may make the parser hold: data, event and id
    /// values together.
    explicit parser(std::size_t max_event_bytes = default_max_event_bytes) : max_event_bytes_(max_event_bytes) {}

    /// Parses `bytes`, calling `on_event(const sse::event&)` for each block ended by a blank
    /// line. Returns false on error (see last_error()); the parser then stays failed until
    /// restart(). If on_event throws, the parser stays usable.
    template <class OnEvent>
    bool feed(std::string_view bytes, OnEvent&& on_event) {
        if (error_) return false;
        if (state_ == state::bom) {
            static constexpr char bom[3] = {'\xEF', '\xBB', '\xBF'};
            while (!bytes.empty() && bom_matched_ < 3) {
                if (bytes.front() != bom[bom_matched_]) {  // not a BOM: what matched so far is text
                    const std::size_t matched = bom_matched_;
                    bom_matched_ = 3;
                    state_ = state::line_start;
                    if (!run(std::string_view(bom, matched), on_event)) return false;
                    break;
                }
                ++bom_matched_;
                bytes.remove_prefix(1);
            }
            if (bom_matched_ < 3) return true;
            if (state_ == state::bom) state_ = state::line_start;
        }
        return run(bytes, on_event);
    }

    /// True inside a line or a block: the stream ending now would lose an event.
    [[nodiscard]] bool mid_event() const noexcept {
        return block_has_fields_ ||
               (state_ != state::line_start && state_ != state::after_cr && state_ != state::bom) ||
               (state_ == state::bom && bom_matched_ > 0);
    }

    /// Starts a new stream (a reconnection): a BOM is allowed again and any partial block is
    /// dropped; the last event ID and retry survive, since a reconnection sends them back.
    void restart() noexcept {
        state_ = state::bom;
        bom_matched_ = 0;
        target_ = target::none;
        block_has_fields_ = false;
        data_.clear();
        type_.clear();
        id_value_.clear();
        id_buffer_ = last_event_id_;
        error_ = {};
    }

    /// The last event ID as of the last dispatched block (what Last-Event-ID should carry).
    [[nodiscard]] std::string_view last_event_id() const noexcept { return last_event_id_; }
    /// The last valid retry field, in milliseconds.
    [[nodiscard]] std::optional<std::uint64_t> retry_ms() const noexcept { return retry_; }
    /// Comment lines seen (servers send them as keep-alives).
    [[nodiscard]] std::uint64_t comments() const noexcept { return comments_; }
    [[nodiscard]] const error& last_error() const noexcept { return error_; }
    [[nodiscard]] bool failed() const noexcept { return static_cast<bool>(error_); }
    [[nodiscard]] std::size_t max_event_bytes() const noexcept { return max_event_bytes_; }

private:
    enum class state : std::uint8_t { bom, line_start, name, value_start, value, skip, line_end, after_cr };
    enum class target : std::uint8_t { none, data, event, id, retry };

    // First CR or LF in [p, end), or end.
    static const char* find_eol(const char* p, const char* end) noexcept {
        const auto n = static_cast<std::size_t>(end - p);
        const char* lf = static_cast<const char*>(std::memchr(p, '\n', n));
        const char* limit = lf ? lf : end;
        const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(limit - p)));
        return cr ? cr : limit;
    }

    template <class OnEvent>
    bool run(std::string_view bytes, OnEvent& on_event) {
        const char* p = bytes.data();
        const char* const end = p + bytes.size();
        while (p < end) {
            switch (state_) {
                case state::after_cr:
                    state_ = state::line_start;
                    if (*p == '\n') {  // CR LF, possibly split across feeds: one line ending
                        ++p;
                        continue;
                    }
                    [[fallthrough]];
                case state::line_start:
                    if (*p == '\n' || *p == '\r') {
                        state_ = *p == '\r' ? state::after_cr : state::line_start;
                        ++p;
                        dispatch(on_event);
                        continue;
                    }
                    if (*p == ':') {
                        ++comments_;
                        state_ = state::skip;
                        ++p;
                        continue;
                    }
                    name_len_ = 0;
                    state_ = state::name;
                    [[fallthrough]];
                case state::name: {
                    const char* q = p;
                    while (q < end && *q != ':' && *q != '\r' && *q != '\n') ++q;
                    for (const char* c = p; c < q; ++c) {  // only short names can be known fields
                        if (name_len_ < sizeof name_) name_[name_len_] = *c;
                        ++name_len_;
                    }
                    p = q;
                    if (q == end) continue;
                    begin_field();
                    if (*q == ':') {
                        ++p;
                        state_ = state::value_start;
                        continue;
                    }
                    if (!end_field()) return false;  // no colon: the line is a name with an empty value
                    state_ = state::line_end;
                    continue;
                }
                case state::value_start:
                    state_ = state::value;
                    if (*p == ' ') {  // one leading space is part of the syntax, not the value
                        ++p;
                        continue;
                    }
                    [[fallthrough]];
                case state::value: {
                    const char* q = find_eol(p, end);
                    if (!append_value(p, static_cast<std::size_t>(q - p))) return false;
                    p = q;
                    if (q == end) continue;
                    if (!end_field()) return false;
                    state_ = state::line_end;
                    continue;
                }
                case state::skip:
                    p = find_eol(p, end);
                    if (p != end) state_ = state::line_end;
                    continue;
                case state::line_end:
                    state_ = *p == '\r' ? state::after_cr : state::line_start;
                    ++p;
                    continue;
                case state::bom:
                    state_ = state::line_start;
                    continue;
            }
        }
        return true;
    }

    void begin_field() {
        block_has_fields_ = true;
        const std::string_view name(name_, name_len_ <= sizeof name_ ? name_len_ : 0);
        if (name == "data") {
            target_ = target::data;
        } else if (name == "event") {
            target_ = target::event;
            type_.clear();
        } else if (name == "id") {
            target_ = target::id;
            id_value_.clear();
            id_has_nul_ = false;
        } else if (name == "retry") {
            target_ = target::retry;
            retry_value_ = 0;
            retry_digits_ = 0;
            retry_valid_ = true;
        } else {
            target_ = target::none;  // unknown fields are ignored
        }
    }

    bool check_size(std::size_t more) {
        const std::size_t held = data_.size() + type_.size() + id_value_.size();
        if (held + more <= max_event_bytes_) return true;
        error_.code = errc::event_too_large;
        error_.message = "an SSE event exceeds " + std::to_string(max_event_bytes_) +
                         " bytes (max_event_bytes): " + std::to_string(held + more) +
                         " bytes of data, event and id so far";
        return false;
    }

    bool append_value(const char* p, std::size_t n) {
        switch (target_) {
            case target::data:
                if (!check_size(n)) return false;
                data_.append(p, n);
                return true;
            case target::event:
                if (!check_size(n)) return false;
                type_.append(p, n);
                return true;
            case target::id:
                if (!check_size(n)) return false;
                if (std::memchr(p, '\0', n) != nullptr) id_has_nul_ = true;
                id_value_.append(p, n);
                return true;
            case target::retry:
                for (std::size_t i = 0; i < n; ++i) {
                    if (p[i] < '0' || p[i] > '9') {
                        retry_valid_ = false;
                    } else {
                        retry_value_ = retry_value_ > (UINT64_MAX - 9) / 10
                                           ? UINT64_MAX
                                           : retry_value_ * 10 + static_cast<std::uint64_t>(p[i] - '0');
                        ++retry_digits_;
                    }
                }
                return true;
            case target::none:
                return true;
        }
        return true;
    }

    bool end_field() {
        switch (target_) {
            case target::data:
                if (!check_size(1)) return false;
                data_ += '\n';
                break;
            case target::id:
                if (!id_has_nul_) id_buffer_ = id_value_;  // an id with NUL is ignored whole
                id_value_.clear();
                break;
            case target::retry:
                if (retry_valid_ && retry_digits_ > 0) retry_ = retry_value_;
                break;
            case target::event:
            case target::none:
                break;
        }
        target_ = target::none;
        return true;
    }

    template <class OnEvent>
    void dispatch(OnEvent& on_event) {
        if (!block_has_fields_) return;  // blank lines after nothing (or only comments)
        block_has_fields_ = false;
        if (last_event_id_ != id_buffer_) last_event_id_ = id_buffer_;
        struct clear_on_exit {
            parser& p;
            ~clear_on_exit() {
                p.data_.clear();
                p.type_.clear();
            }
        } guard{*this};
        event e;
        e.type = type_.empty() ? std::string_view("message") : std::string_view(type_);
        e.id = last_event_id_;
        e.has_data = !data_.empty();
        if (e.has_data) {
            data_.pop_back();  // the '\n' ending the last data line
            e.data = data_;
        }
        on_event(static_cast<const event&>(e));
    }

    std::size_t max_event_bytes_;
    state state_ = state::bom;
    target target_ = target::none;
    std::size_t bom_matched_ = 0;
    char name_[8]{};
    std::size_t name_len_ = 0;
    bool block_has_fields_ = false;
    bool id_has_nul_ = false;
    bool retry_valid_ = false;
    std::size_t retry_digits_ = 0;
    std::uint64_t retry_value_ = 0;
    std::optional<std::uint64_t> retry_;
    std::string data_;
    std::string type_;
    std::string id_value_;       // the id line being read
    std::string id_buffer_;      // WHATWG's "last event ID buffer"
    std::string last_event_id_;  // its value at the last dispatch
    std::uint64_t comments_ = 0;
    error error_;
};

}  // namespace mcp_loadtest::detail::sse
