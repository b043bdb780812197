// The request/reply hot path against a full JSON DOM, measured in the same run.
//
// Prints ns per operation for: writing a tools/call envelope around
// pre-serialized arguments vs building and dumping it with nlohmann; and
// locating id/result/isError in a reply with the envelope scanner vs parsing it
// with nlohmann. `bench_envelope [iterations]` (CI runs a short smoke).
#include <mcp_loadtest/detail/json_scan.hpp>
#include <mcp_loadtest/detail/jsonrpc_writer.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlt = mcp_loadtest;
using clk = std::chrono::steady_clock;

namespace {

volatile std::size_t sink = 0;

template <class F>
double ns_per_op(std::size_t iterations, F&& f) {
    for (std::size_t i = 0; i < iterations / 10 + 1; ++i) f(i);  // warm up
    const auto t0 = clk::now();
    for (std::size_t i = 0; i < iterations; ++i) f(i);
    return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / static_cast<double>(iterations);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const mlt::json arguments{{"ticker", "AAPL"}, {"days", 30}, {"fields", {"open", "close", "volume"}}};
    const std::string args_text = arguments.dump();

    std::string out;
    const double write_ours = ns_per_op(n, [&](std::size_t i) {
        out.clear();
        mlt::detail::begin_request(out, i, "tools/call");
        out += R"(,"params":{"name":)";
        mlt::detail::append_json_string(out, "get_market_data");
        out += R"(,"arguments":)";
        out += args_text;
        out += "}}\n";
        sink = sink + out.size();
    });
    const double write_dom = ns_per_op(n, [&](std::size_t i) {
        const mlt::json req{{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/call"},
                            {"params", {{"name", "get_market_data"}, {"arguments", arguments}}}};
        out = req.dump();
        sink = sink + out.size();
    });

    const std::string reply =
        R"({"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"AAPL open 189.1 close 190.2 volume 51234567"}],"isError":false}})";
    const double read_ours = ns_per_op(n, [&](std::size_t) {
        const auto env = mlt::detail::envelope_scanner::scan(reply);
        sink = sink + env.id_value + env.result.size + env.result_is_error_flagged;
    });
    const double read_dom = ns_per_op(n, [&](std::size_t) {
        const auto j = mlt::json::parse(reply);
        sink = sink + j["id"].get<std::size_t>() + j["result"].size() + j["result"].value("isError", false);
    });

    std::printf("iterations: %zu (reply of %zu bytes)\n", n, reply.size());
    std::printf("write tools/call envelope: %8.1f ns/op   nlohmann build+dump: %8.1f ns/op   speed-up %.1fx\n",
                write_ours, write_dom, write_dom / write_ours);
    std::printf("correlate reply:           %8.1f ns/op   nlohmann parse:      %8.1f ns/op   speed-up %.1fx\n",
                read_ours, read_dom, read_dom / read_ours);
    return 0;
}
