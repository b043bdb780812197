// A detector of your own, built from the same parts as the built-in ones: the
// same read twice at once on one session, the replies compared. A read that
// changes state (a counter, a cache filled twice) shows as two answers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/session.hpp>

#include <cstdio>
#include <string>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

struct idempotency_report {
    std::size_t pairs = 0;
    std::size_t differing = 0;
    std::string first_difference;  ///< the two replies of the first pair that differed
};

/// `pairs` times: the same call twice, concurrently; the replies' results compared.
asio::awaitable<idempotency_report> idempotency_check(mlt::session& s, std::string tool, mlt::json arguments,
                                                      std::size_t pairs) {
    idempotency_report r;
    const auto args = mlt::raw_json::from(arguments);  // serialized once
    auto rounds = co_await mlt::repeat(pairs, [&](std::size_t) {
        return mlt::concurrently(2, [&](std::size_t) { return s.call_tool(tool, args); });
    });
    for (const auto& twice : rounds) {
        ++r.pairs;
        const auto a = twice[0].answered() ? twice[0].payload_text() : std::string_view("(no reply)");
        const auto b = twice[1].answered() ? twice[1].payload_text() : std::string_view("(no reply)");
        if (a == b) continue;
        if (r.differing++ == 0) r.first_difference = std::string(a) + "\n   vs " + std::string(b);
    }
    co_return r;
}

asio::awaitable<std::string> new_cart(mlt::session& s) {
    auto cart = co_await s.call_tool("create_cart", mlt::args("user", 1));
    co_return cart.structured()["id"].get<std::string>();
}

}  // namespace

MCP_LOADTEST_CASE("get_cart is idempotent") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/shop_server.py"}};
    auto s = co_await mlt::connect(server);
    const std::string cart = co_await new_cart(s);
    auto report = co_await idempotency_check(s, "get_cart", mlt::args("cart", cart), 20);
    CHECK(report.pairs == 20);
    CHECK_MESSAGE(report.differing == 0, report.first_difference);
    co_await s.close();
}

MCP_LOADTEST_CASE("the check catches a read that changes state") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/shop_server.py", "--nonidempotent-get"}};
    auto s = co_await mlt::connect(server);
    const std::string cart = co_await new_cart(s);
    auto report = co_await idempotency_check(s, "get_cart", mlt::args("cart", cart), 20);
    std::printf("first difference:\n   %s\n", report.first_difference.c_str());
    CHECK(report.differing == 20);
    co_await s.close();
}
