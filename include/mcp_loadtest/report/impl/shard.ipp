// Definitions of report/shard.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/shard.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL void check_shard(const shard_spec& s) {
    if (s.count == 0 || s.index >= s.count)
        throw std::invalid_argument("mcp_loadtest: shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                                    " is not a shard: the index runs from 0 to count-1 and count is at least 1 "
                                    "(MCP_LOADTEST_SHARD=0/3, 1/3, 2/3)");
}

MCP_LOADTEST_DECL std::uint64_t share_of(std::uint64_t whole, const shard_spec& s) noexcept {
    return whole / s.count + (s.index < whole % s.count ? 1 : 0);
}

MCP_LOADTEST_DECL std::uint64_t parse_unsigned(std::string_view text, const char* what) {
    std::uint64_t v = 0;
    if (text.empty() || text.size() > 18) throw std::invalid_argument(what);
    for (char c : text) {
        if (c < '0' || c > '9') throw std::invalid_argument(what);
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return v;
}

}  // namespace detail

MCP_LOADTEST_DECL std::uint64_t shard_seed(std::uint64_t seed, const shard_spec& s) noexcept {
    return seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(s.index);
}

MCP_LOADTEST_DECL workload shard_workload(const workload& whole, const shard_spec& s) {
    detail::check_shard(s);
    if (!s.sharded()) return whole;
    const double n = static_cast<double>(s.count);
    const auto at_least_one = [](std::uint64_t v) { return std::max<std::uint64_t>(v, 1); };
    if (const auto* c = std::get_if<closed_load>(&whole)) {
        closed_load part = *c;
        part.users = static_cast<std::size_t>(detail::share_of(c->users, s));
        if (c->max_iterations) part.max_iterations = at_least_one(detail::share_of(c->max_iterations, s));
        return part;
    }
    if (const auto* o = std::get_if<open_load>(&whole)) {
        open_load part = *o;
        part.rate = o->rate / n;
        part.max_in_flight = static_cast<std::size_t>(at_least_one(detail::share_of(o->max_in_flight, s)));
        return part;
    }
    staged_load part = std::get<staged_load>(whole);
    const auto divide = [&](double target) {
        if (part.by == staged_load::driver::rate) return target / n;
        const auto users = static_cast<std::uint64_t>(std::llround(std::max(target, 0.0)));
        return static_cast<double>(detail::share_of(users, s));
    };
    part.start = divide(part.start);
    for (auto& st : part.stages) st.target = divide(st.target);
    part.max_in_flight = static_cast<std::size_t>(at_least_one(detail::share_of(part.max_in_flight, s)));
    return part;
}

MCP_LOADTEST_DECL shard_spec shard_from_environment() {
    shard_spec s;
    if (const char* shard = std::getenv("MCP_LOADTEST_SHARD"); shard && *shard) {
        const std::string_view text(shard);
        const std::string why = "MCP_LOADTEST_SHARD=\"" + std::string(text) +
                                "\" is not i/N (the 0-based shard index and the shard count, e.g. 0/3)";
        const auto slash = text.find('/');
        if (slash == std::string_view::npos) throw std::invalid_argument(why);
        s.index = static_cast<std::size_t>(detail::parse_unsigned(text.substr(0, slash), why.c_str()));
        s.count = static_cast<std::size_t>(detail::parse_unsigned(text.substr(slash + 1), why.c_str()));
        if (s.count == 0 || s.index >= s.count) throw std::invalid_argument(why + ": the index must be below the count");
    }
    if (const char* start = std::getenv("MCP_LOADTEST_SHARD_START"); start && *start) {
        char* end = nullptr;
        const double seconds = std::strtod(start, &end);
        if (end == start || *end != '\0' || !(seconds >= 0) || seconds > 1e11)
            throw std::invalid_argument("MCP_LOADTEST_SHARD_START=\"" + std::string(start) +
                                        "\" is not a Unix time in seconds (e.g. $(date +%s) + 5)");
        s.start = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::duration<double>(seconds)));
    }
    return s;
}

}  // namespace mcp_loadtest
