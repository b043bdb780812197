// Incremental Server-Sent Events parser (WHATWG HTML, "event stream interpretation"), for the
// Streamable HTTP and legacy HTTP+SSE transports.
//
// Bytes arrive as HTTP body pieces cut anywhere, so the parser is a byte-level state machine
// that copies each data value once, straight into the event's buffer, and never buffers whole
// lines: comments and unknown fields are skipped without being stored. Events are delivered to
// a callback as views valid during the call. One departure from the spec: bytes are not UTF-8
// decoded (no U+FFFD replacement); the JSON layer sees exactly what the server sent.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/wire_text.hpp>

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
    [[nodiscard]] MCP_LOADTEST_DECL bool mid_event() const noexcept;

    /// Starts a new stream (a reconnection): a BOM is allowed again and any partial block is
    /// dropped; the last event ID and retry survive, since a reconnection sends them back.
    MCP_LOADTEST_DECL void restart() noexcept;

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
    static MCP_LOADTEST_DECL const char* find_eol(const char* p, const char* end) noexcept;

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

    MCP_LOADTEST_DECL void begin_field();

    MCP_LOADTEST_DECL bool check_size(std::size_t more);

    MCP_LOADTEST_DECL bool append_value(const char* p, std::size_t n);

    MCP_LOADTEST_DECL bool end_field();

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

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/sse.ipp>
#endif
