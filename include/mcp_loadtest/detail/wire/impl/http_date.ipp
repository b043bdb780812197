// Definitions of detail/wire/http_date.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/http_date.hpp>

#include <array>
#include <cstddef>

namespace mcp_loadtest::detail {

namespace http_date_detail {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr bool leap(std::int64_t y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// A cursor over the date's text: each step consumes exactly what it expects or fails.
struct cursor {
    std::string_view s;
    bool ok = true;

    bool literal(std::string_view x) {
        if (!ok || s.substr(0, x.size()) != x) return ok = false;
        s.remove_prefix(x.size());
        return true;
    }
    // Exactly `n` digits (n = 0: one or more).
    std::int64_t digits(std::size_t n) {
        std::size_t i = 0;
        std::int64_t v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && (n == 0 || i < n) && i < 9) v = v * 10 + (s[i++] - '0');
        if (i == 0 || (n != 0 && i != n)) ok = false;
        s.remove_prefix(i);
        return v;
    }
    // One of `names` (case-sensitive, as the grammar says): its index.
    template <std::size_t N>
    int name(const std::array<std::string_view, N>& names) {
        if (!ok) return -1;
        for (std::size_t i = 0; i < N; ++i)
            if (s.substr(0, names[i].size()) == names[i]) {
                s.remove_prefix(names[i].size());
                return static_cast<int>(i);
            }
        ok = false;
        return -1;
    }
};

inline constexpr std::array<std::string_view, 12> months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
inline constexpr std::array<std::string_view, 7> short_days{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
inline constexpr std::array<std::string_view, 7> long_days{"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                    "Friday", "Saturday", "Sunday"};

inline std::optional<std::int64_t> instant(std::int64_t y, int month, std::int64_t d, std::int64_t h, std::int64_t mi,
                                    std::int64_t sec) {
    constexpr std::array<int, 12> length{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 0 || d < 1 || h > 23 || mi > 59 || sec > 60) return std::nullopt;  // 60: a leap second
    const int last = length[static_cast<std::size_t>(month)] + (month == 1 && leap(y) ? 1 : 0);
    if (d > last) return std::nullopt;
    return days_from_civil(y, static_cast<unsigned>(month + 1), static_cast<unsigned>(d)) * 86400 + h * 3600 +
           mi * 60 + sec;
}

}  // namespace http_date_detail

MCP_LOADTEST_DECL std::optional<std::int64_t> parse_http_date(std::string_view text, std::int64_t now_unix) {
    using namespace http_date_detail;
    const auto time_of_day = [](cursor& c, std::int64_t& h, std::int64_t& mi, std::int64_t& sec) {
        h = c.digits(2);
        c.literal(":");
        mi = c.digits(2);
        c.literal(":");
        sec = c.digits(2);
    };
    std::int64_t y = 0, d = 0, h = 0, mi = 0, sec = 0;
    int month = -1;
    if (text.size() > 3 && text[3] == ',') {  // IMF-fixdate
        cursor c{text};
        c.name(short_days);
        c.literal(", ");
        d = c.digits(2);
        c.literal(" ");
        month = c.name(months);
        c.literal(" ");
        y = c.digits(4);
        c.literal(" ");
        time_of_day(c, h, mi, sec);
        c.literal(" GMT");
        if (!c.ok || !c.s.empty()) return std::nullopt;
    } else if (text.find(',') != std::string_view::npos) {  // RFC 850
        cursor c{text};
        const auto comma = text.find(',');
        bool day_ok = false;
        for (auto day : long_days) day_ok = day_ok || text.substr(0, comma) == day;
        if (!day_ok) return std::nullopt;
        c.s.remove_prefix(comma);
        c.literal(", ");
        d = c.digits(2);
        c.literal("-");
        month = c.name(months);
        c.literal("-");
        y = c.digits(2);
        c.literal(" ");
        time_of_day(c, h, mi, sec);
        c.literal(" GMT");
        if (!c.ok || !c.s.empty()) return std::nullopt;
        // RFC 9110: a two-digit year more than 50 years in the future means the century before.
        const std::int64_t now_year = 1970 + now_unix / 31'556'952;
        y += now_year / 100 * 100;
        if (y > now_year + 50) y -= 100;
    } else {  // asctime: "Sun Nov  6 08:49:37 1994"
        cursor c{text};
        c.name(short_days);
        c.literal(" ");
        month = c.name(months);
        c.literal(" ");
        if (!c.s.empty() && c.s.front() == ' ') {
            c.literal(" ");
            d = c.digits(1);
        } else {
            d = c.digits(2);
        }
        c.literal(" ");
        time_of_day(c, h, mi, sec);
        c.literal(" ");
        y = c.digits(4);
        if (!c.ok || !c.s.empty()) return std::nullopt;
    }
    return instant(y, month, d, h, mi, sec);
}

MCP_LOADTEST_DECL std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, std::int64_t now_unix) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    if (value.find_first_not_of("0123456789") == std::string_view::npos) {
        if (value.size() > 9) return std::nullopt;  // over 30 years: not a wait anyone means
        std::int64_t v = 0;
        for (char ch : value) v = v * 10 + (ch - '0');
        return std::chrono::seconds(v);
    }
    const auto at = parse_http_date(value, now_unix);
    if (!at) return std::nullopt;
    return std::chrono::seconds(*at > now_unix ? *at - now_unix : 0);
}

}  // namespace mcp_loadtest::detail
