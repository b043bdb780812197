// The request/reply hot path against a full JSON DOM, measured in the same run.
//
// Prints ns per operation for: writing a tools/call envelope around
// pre-serialized arguments vs building and dumping it with nlohmann; and
// locating id/result/isError in a reply with the envelope scanner vs parsing it
// with nlohmann. `bench_envelope [iterations]` (CI runs a short smoke).
//
// Then the reply diff of record and replay: diff_json() over a recording of 10,000 tools/call
// replies (1 in 20 changed in one field, a timestamp ignored) against nlohmann parsing the same
// 10,000 replies, the work replay does anyway.
//
// `bench_envelope --scan SHAPE N [--exact]` scans N replies of one shape (a loop of
// 64, their ids varied) with scan(), or with scan_exact() (the scanner without its
// fast path for valid objects), for callgrind at two N: scan_instructions_per_reply.sh.
#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/replay/json_diff.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

// Replies as servers write them, by name; `id` varies per line.
std::string reply_of_shape(std::string_view name, unsigned id) {
    const std::string i = std::to_string(id);
    const auto text_of = [](std::size_t n) {
        static constexpr std::string_view words = "lorem ipsum dolor sit amet, consectetur adipiscing elit; 0123456789 ";
        std::string t;
        while (t.size() < n) t += words;
        t.resize(n);
        return t;
    };
    if (name == "echo") return R"({"jsonrpc":"2.0","id":)" + i + R"(,"result":{"content":[{"type":"text","text":"ok"}]}})";
    if (name == "error")
        return R"({"jsonrpc":"2.0","id":)" + i + R"(,"error":{"code":-32602,"message":"Unknown tool: nope"}})";
    if (name == "is-error")
        return R"({"jsonrpc":"2.0","id":)" + i +
               R"(,"result":{"content":[{"type":"text","text":"Tool failed: timeout after 30 s"}],"isError":true}})";
    if (name == "text-2k")
        return R"({"jsonrpc":"2.0","id":)" + i + R"(,"result":{"content":[{"type":"text","text":")" + text_of(2048) +
               R"("}]}})";
    if (name == "result-first")  // server-everything's order
        return R"({"result":{"content":[{"type":"text","text":"Echo: hello from the load test"}]},"jsonrpc":"2.0","id":)" +
               i + "}";
    if (name == "structured")
        return R"({"jsonrpc":"2.0","id":)" + i +
               R"(,"result":{"content":[{"type":"text","text":"22.5 C, sunny"}],"structuredContent":{"temperature":22.5,)"
               R"("conditions":"sunny","humidity":0.65,"alerts":[],"station":{"id":"KSEA","elevation":-4.5e1,"active":true,)"
               R"("retired":false,"note":null},"readings":[1,2,3,17,-0.25]},"isError":false}})";
    if (name == "spaced")  // Python's json.dumps
        return R"({"jsonrpc": "2.0", "id": )" + i +
               R"(, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}})";
    if (name == "bad-utf8")  // invalid: read again by the exact path
        return R"({"jsonrpc":"2.0","id":)" + i + R"(,"result":{"content":[{"type":"text","text":"o)" "\xff" R"(k"}]}})";
    return {};
}

int scan_count(int argc, char** argv) {
    const std::string_view shape = argc > 2 ? argv[2] : "";
    const std::size_t n = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
    const bool exact = argc > 4 && std::string_view(argv[4]) == "--exact";
    if (reply_of_shape(shape, 1).empty() || n == 0) {
        std::fprintf(stderr, "usage: bench_envelope --scan SHAPE N [--exact]; SHAPE: echo, error, is-error, text-2k, "
                             "result-first, structured, spaced, bad-utf8\n");
        return 2;
    }
    std::vector<std::string> lines;
    for (unsigned k = 0; k < 64; ++k) lines.push_back(reply_of_shape(shape, 10000 + k * 997 % 90000));
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const auto env = exact ? mlt::detail::envelope_scanner::scan_exact(lines[k & 63])
                               : mlt::detail::envelope_scanner::scan(lines[k & 63]);
        sum += env.id_value + env.result.size + env.error.size + env.result_is_error_flagged + env.valid;
    }
    std::printf("%.*s: %zu bytes, checksum %llu\n", static_cast<int>(shape.size()), shape.data(), lines[0].size(),
                static_cast<unsigned long long>(sum));
    return 0;
}

}  // namespace

// A recording's reply `i` as a server writes it: a tools/call result, every third one with JSON
// in its text (a list of items and the time it was generated), every fifth with
// structuredContent. `changed` alters one field (what replay is there to find); `stamp` is the
// time, which differs between the recording and the replay and is ignored.
std::string recorded_reply(unsigned i, bool changed, const std::string& stamp) {
    const std::string id = std::to_string(i);
    std::string result;
    if (i % 3 == 0) {
        mlt::json items = mlt::json::array();
        for (unsigned k = 0; k < 8; ++k)
            items.push_back({{"id", i * 10 + k}, {"name", "item-" + std::to_string(k)}, {"price", 10.5 + k},
                             {"tags", {"a", "b"}}});
        if (changed) items[3]["price"] = 99.0;
        const mlt::json text{{"items", items}, {"generatedAt", stamp}, {"count", 8}};
        result = mlt::json{{"content", {{{"type", "text"}, {"text", text.dump()}}}}}.dump();
    } else if (i % 5 == 0) {
        const mlt::json structured{{"ticker", "AAPL"}, {"close", changed ? 191.0 : 190.2}, {"generatedAt", stamp}};
        result = mlt::json{{"content", {{{"type", "text"}, {"text", structured.dump()}}}},
                           {"structuredContent", structured}}
                     .dump();
    } else {
        result = mlt::json{{"content", {{{"type", "text"}, {"text", changed ? "AAPL open 189.1 close 191.0"
                                                                            : "AAPL open 189.1 close 190.2"}}}},
                           {"isError", false}}
                     .dump();
    }
    return R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}";
}

// Diffs 10,000 recorded replies against their replay; prints the time against parsing them.
void diff_row() {
    constexpr unsigned replies = 10'000;
    std::vector<std::string> recorded, replayed;
    for (unsigned i = 0; i < replies; ++i) {
        recorded.push_back(recorded_reply(i, false, "2026-11-28T16:00:00Z"));
        replayed.push_back(recorded_reply(i, i % 20 == 7, "2026-11-28T17:30:00Z"));
    }
    std::vector<mlt::json> before, after;
    for (unsigned i = 0; i < replies; ++i) {
        before.push_back(mlt::json::parse(recorded[i]));
        after.push_back(mlt::json::parse(replayed[i]));
    }
    mlt::diff_rules rules;
    rules.ignore = {"/result/content/*/text/generatedAt", "/result/structuredContent/generatedAt"};
    std::size_t differences = 0;
    const auto timed = [](auto&& f) {
        double best = 1e300;
        for (int round = 0; round < 5; ++round) {  // the best of 5: the least disturbed
            const auto t0 = clk::now();
            f();
            best = std::min(best, std::chrono::duration<double, std::milli>(clk::now() - t0).count());
        }
        return best;
    };
    const double diff_ms = timed([&] {
        differences = 0;
        for (unsigned i = 0; i < replies; ++i) differences += mlt::diff_json(before[i], after[i], rules).total();
    });
    const double parse_ms = timed([&] {
        for (unsigned i = 0; i < replies; ++i) sink = sink + mlt::json::parse(replayed[i]).size();
    });
    std::size_t bytes = 0;
    for (const auto& r : replayed) bytes += r.size();
    std::printf("diff %u replies (%zu bytes, %zu differ): %7.2f ms, %6.0f ns/reply   nlohmann parse: %7.2f ms, "
                "%6.0f ns/reply   diff/parse %.2f\n",
                replies, bytes, differences, diff_ms, diff_ms * 1e6 / replies, parse_ms, parse_ms * 1e6 / replies,
                diff_ms / parse_ms);
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "--scan") return scan_count(argc, argv);
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
    diff_row();
    return 0;
}
