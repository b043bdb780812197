// libFuzzer harness: URL parsing and reference resolution (detail/wire/url.hpp). Checks what the
// transports rely on: a parsed URL re-parses from its redacted() form to itself minus the
// userinfo; targets are never empty and never hold bytes a request line cannot carry; errors
// never show the userinfo; resolving a relative reference is idempotent.
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/url.hpp>

#include <cctype>

namespace d = mcp_loadtest::detail;

namespace {

void check_url(const d::url& u, std::string_view from) {
    const std::string ctx = "from " + fuzz::shown(from);
    FUZZ_CHECK(u.scheme == "http" || u.scheme == "https" || u.scheme == "ws" || u.scheme == "wss", ctx);
    FUZZ_CHECK(!u.host.empty(), ctx);
    FUZZ_CHECK(u.port != 0 && u.port_text == std::to_string(u.port), ctx);
    FUZZ_CHECK(!u.target.empty() && u.target.front() == '/', ctx);
    for (const char c : u.target) {
        const auto b = static_cast<unsigned char>(c);
        FUZZ_CHECK(b > 0x20 && b < 0x7f && c != '#', "target " + fuzz::shown(u.target) + " " + ctx);
    }
    for (const char c : u.host) FUZZ_CHECK(!std::isupper(static_cast<unsigned char>(c)), ctx);
    // redacted() is what logs show and what a relative reference resolves against.
    std::string error;
    const auto again = d::parse_url(u.redacted(), &error);
    FUZZ_CHECK(again.has_value(),
               "redacted() " + fuzz::shown(u.redacted()) + " does not parse: " + error + " " + ctx);
    d::url expected = u;
    expected.userinfo.clear();
    FUZZ_CHECK(*again == expected, "redacted() " + fuzz::shown(u.redacted()) + " parses differently " + ctx);
}

// The userinfo as parse_url() cuts it (between "://" and the last '@' of the authority), if any.
std::string_view userinfo_of(std::string_view text) {
    const std::size_t sep = text.find("://");
    if (sep == std::string_view::npos) return {};
    const std::string_view rest = text.substr(sep + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    const std::size_t at = authority.rfind('@');
    return at == std::string_view::npos ? std::string_view{} : authority.substr(0, at);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    std::string error;
    const auto u = d::parse_url(text, &error);
    if (u) {
        check_url(*u, text);
        FUZZ_CHECK(error.empty());
    } else {
        FUZZ_CHECK(error.starts_with("invalid URL "), error);
    }
    // The userinfo is a secret: nothing but the userinfo field may depend on it. The same text
    // with it overwritten must give the same error, or the same URL.
    if (const std::string_view secret = userinfo_of(text); !secret.empty()) {
        std::string other(text);
        other.replace(static_cast<std::size_t>(secret.data() - text.data()), secret.size(), secret.size(), 'u');
        std::string other_error;
        auto v = d::parse_url(other, &other_error);
        FUZZ_CHECK(other_error == error, "the error depends on the userinfo:\n" + error + "\n" + other_error);
        FUZZ_CHECK(v.has_value() == u.has_value());
        if (u) {
            v->userinfo = u->userinfo;
            FUZZ_CHECK(*v == *u);
        }
    }

    // The same bytes as a reference against a base, as the legacy SSE endpoint event gives them.
    // The base's userinfo may not show in errors either: a base differing only there must give
    // the same error, or the same URL up to the userinfo.
    static const d::url base = *d::parse_url("http://user:secret@example.com:8080/mcp/v1/sse?session=1");
    static const d::url other_base = *d::parse_url("http://uuuu:uuuuuu@example.com:8080/mcp/v1/sse?session=1");
    error.clear();
    std::string other_error;
    const auto r = d::resolve_relative(base, text, &error);
    auto other = d::resolve_relative(other_base, text, &other_error);
    FUZZ_CHECK(error == other_error, "the error depends on the base's userinfo:\n" + error + "\n" + other_error);
    FUZZ_CHECK(r.has_value() == other.has_value());
    if (r) {
        check_url(*r, text);
        // Only an inherited userinfo differs (a network-path reference may carry its own,
        // even one spelled like other_base's).
        if (r->userinfo == base.userinfo && other->userinfo == other_base.userinfo) other->userinfo = base.userinfo;
        FUZZ_CHECK(*other == *r);
        // A relative reference keeps the base's authority (userinfo included). Resolving the
        // result's own target gives it back, since dot segments are already removed; absolute and
        // network-path references go through parse_url(), which does not normalize paths. (A
        // target may start with "//", as RFC 3986 gives for "/.//x": as a reference that would
        // name a host, so it is not resolved again.)
        const std::string_view ref = d::url_detail::trim_space(text);
        const bool relative = d::url_detail::scheme_length(ref) == 0 && !ref.starts_with("//");
        if (relative) FUZZ_CHECK(r->origin() == base.origin() && r->userinfo == base.userinfo);
        if (relative && !r->target.starts_with("//")) {
            const auto again = d::resolve_relative(base, r->target);
            FUZZ_CHECK(again.has_value() && *again == *r,
                       "resolving " + fuzz::shown(r->target) + " again differs (from " + fuzz::shown(text) + ")");
        }
    }
    return 0;
}
