// Definitions of detail/wire/sse.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/sse.hpp>

namespace mcp_loadtest::detail::sse {

MCP_LOADTEST_DECL bool parser::mid_event() const noexcept {
    return block_has_fields_ ||
           (state_ != state::line_start && state_ != state::after_cr && state_ != state::bom) ||
           (state_ == state::bom && bom_matched_ > 0);
}

MCP_LOADTEST_DECL void parser::restart() noexcept {
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

MCP_LOADTEST_DECL const char* parser::find_eol(const char* p, const char* end) noexcept {
    const auto n = static_cast<std::size_t>(end - p);
    const char* lf = static_cast<const char*>(std::memchr(p, '\n', n));
    const char* limit = lf ? lf : end;
    const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(limit - p)));
    return cr ? cr : limit;
}

MCP_LOADTEST_DECL void parser::begin_field() {
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

MCP_LOADTEST_DECL bool parser::check_size(std::size_t more) {
    const std::size_t held = data_.size() + type_.size() + id_value_.size();
    if (held + more <= max_event_bytes_) return true;
    error_.code = errc::event_too_large;
    error_.message = "an SSE event exceeds " + std::to_string(max_event_bytes_) +
                     " bytes (max_event_bytes): " + std::to_string(held + more) +
                     " bytes of data, event and id so far";
    return false;
}

MCP_LOADTEST_DECL bool parser::append_value(const char* p, std::size_t n) {
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

MCP_LOADTEST_DECL bool parser::end_field() {
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

}  // namespace mcp_loadtest::detail::sse
