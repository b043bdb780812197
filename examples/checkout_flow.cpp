// A user's own flow as a load test: create a cart, read its id from the reply,
// add an item, check the total, delete the cart. The same body runs under a
// closed, an open and a staged load; each step gets its own histogram and SLO.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/run.hpp>

#include <cstdio>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

// One iteration: a shopper's checkout. measure() records each step by name;
// check() counts a wrong answer without stopping the run.
asio::awaitable<void> checkout(mlt::session& s, mlt::iteration& it) {
    auto cart = co_await it.measure("create_cart", s.call_tool("create_cart", mlt::args("user", it.index())));
    if (!it.check(cart.ok(), "create_cart failed", cart.describe())) co_return;
    const std::string id = cart.structured()["id"];

    co_await it.think(5ms);
    auto add = co_await it.measure("add_item", s.call_tool("add_item", mlt::args("cart", id, "sku", "A1")));
    if (it.check(add.ok(), "add_item failed", add.describe()))
        it.check(add.structured()["items"] == 1, "add_item lost the item", add.text());

    auto removed = co_await it.measure("delete_cart", s.call_tool("delete_cart", mlt::args("cart", id)));
    it.check(removed.ok(), "delete_cart failed", removed.describe());
}

mlt::thresholds checkout_slo() {
    mlt::thresholds slo;
    slo.error_rate = 0.0;
    slo.per_step["add_item"] = {.p99 = 250ms};
    slo.per_step["create_cart"] = {.p99 = 250ms};
    return slo;
}

}  // namespace

MCP_LOADTEST_CASE("checkout flow under a closed, an open and a staged load") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/shop_server.py"}};
    const mlt::workload loads[] = {
        mlt::closed_load{.users = 4, .duration = 2s},
        mlt::open_load{.rate = 100, .duration = 2s},
        mlt::ramp(mlt::staged_load::driver::rate, 20, 100, 2, 1s),
    };
    for (const auto& load : loads) {
        auto report = co_await mlt::run(server, load, checkout, checkout_slo());
        std::printf("%s", report.summary().c_str());
        CHECK(report.per_step.at("add_item").calls() > 0);
        CHECK(report.failures.failed_checks == 0);
        MCP_REQUIRE_PASSED(report);
    }
}

MCP_LOADTEST_CASE("a server that loses items fails the run through its checks") {
    mlt::stdio_server server{PYTHON, {FIXTURES "/shop_server.py", "--lose-items"}};
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 5s, .max_iterations = 50};
    auto report = co_await mlt::run(server, load, checkout, checkout_slo());
    std::printf("%s", report.summary().c_str());
    // Every fifth add_item is lost: 10 of 50 checks fail, each with its message and a sample.
    CHECK(report.failures.failed_checks == 10);
    REQUIRE(report.failures.checks.size() == 1);
    CHECK(report.failures.checks[0].message == "add_item lost the item");
    CHECK_FALSE(report.passed);
}
