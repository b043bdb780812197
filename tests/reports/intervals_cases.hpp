// intervals cases of tests/test_reports.cpp (owner: see docs/reports.md): per-interval
// histograms, HdrHistogram interval logs, merges and sharded runs.
#pragma once

#include <mcp_loadtest/detail/engine/interval_recorder.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/report/hlog.hpp>
#include <mcp_loadtest/report/merge.hpp>
#include <mcp_loadtest/report/shard.hpp>

#include "support/json_schema.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace intervals_test {

/// Every bucket of a and b holds the same count, so count, min, max and every percentile fall in
/// the same buckets. (A histogram decoded from HdrHistogram V2 keeps buckets, not the exact
/// nanoseconds: its min and max are its buckets' bounds.)
inline void check_same_histogram(const mlt::latency_histogram& a, const mlt::latency_histogram& b) {
    using H = mlt::latency_histogram;
    REQUIRE(a.count() == b.count());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < H::counts_len; ++i)
        if (a.count_at_index(i) != b.count_at_index(i)) ++differing;
    CHECK(differing == 0);
    CHECK(H::index_of(a.max()) == H::index_of(b.max()));
    CHECK(H::index_of(a.min()) == H::index_of(b.min()));
    for (double p : {50.0, 90.0, 99.0, 99.9}) CHECK(H::index_of(a.percentile(p)) == H::index_of(b.percentile(p)));
}

/// The union of the report's intervals of `tag`.
inline mlt::latency_histogram merged_intervals(const mlt::load_report& r, const std::string& tag) {
    mlt::latency_histogram h;
    for (const auto& i : r.intervals)
        if (i.tag == tag) h.merge(i.histogram());
    return h;
}

inline mlt::mix echo_and_add() {
    mlt::mix calls{{"echo", mlt::args("message", "hi"), 1.0}, {"add", mlt::args("a", 1, "b", 2), 0.5}};
    return calls;
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A report of `values_us` recorded 1 s apart from `start_ns` (the engine's recorder makes its intervals).
inline mlt::load_report synthetic(std::int64_t start_ns, const std::vector<std::uint64_t>& values_us,
                                  const std::string& tool) {
    mlt::load_report r;
    r.run_id = "synthetic";
    r.workload = "open";
    r.workload_parameters = {{"rate", 10}, {"duration_s", 3}};
    r.server = "python3 echo_server.py";
    r.started_at_unix_ns = start_ns;
    r.duration_s = 3;
    mlt::detail::interval_recorder rec(std::chrono::seconds(1));
    for (std::size_t i = 0; i < values_us.size(); ++i) {
        const auto d = std::chrono::microseconds(values_us[i]);
        for (auto* s : {&r.overall, &r.per_tool[tool], &r.per_method["tools/call"]}) {
            s->outcomes.add(mlt::outcome::ok);
            s->histogram.record(d);
        }
        rec.record(i * 3 / values_us.size(), "tools/call", tool, d);
    }
    r.timeline.resize(3);
    for (std::size_t i = 0; i < 3; ++i) r.timeline[i] = {static_cast<double>(i), values_us.size() / 3, 0, 0};
    rec.finish(std::chrono::seconds(3), r.intervals);
    r.overall.finalize();
    for (auto& [n, s] : r.per_tool) s.finalize();
    r.iterations_started = r.iterations_completed = values_us.size();
    r.passed = true;
    return r;
}

}  // namespace intervals_test

MCP_LOADTEST_CASE("intervals: the engine's per-interval histograms add up to the run's, bucket for bucket") {
    auto server = fixture("echo_server.py");
    mlt::run_options options;
    options.sessions = 2;
    options.timeline_bucket = 250ms;
    options.sample_interval = 0ms;
    const auto calls = intervals_test::echo_and_add();
    const mlt::workload load = mlt::open_load{.rate = 200, .duration = 1500ms};
    const mlt::thresholds no_errors{.error_rate = 0.0};
    auto report = co_await mlt::run(server, load, calls, no_errors, options);
    MCP_REQUIRE_PASSED(report);
    CHECK(report.started_at_unix_ns > 1'700'000'000'000'000'000);

    // "" for every interval, consecutive from 0, as long as the timeline; tools only where they had calls.
    std::vector<const mlt::latency_interval*> overall;
    for (const auto& i : report.intervals)
        if (i.tag.empty()) overall.push_back(&i);
    REQUIRE(overall.size() >= 6);
    CHECK(overall.size() <= 8);
    for (std::size_t k = 0; k < overall.size(); ++k) {
        CHECK(overall[k]->at_s == doctest::Approx(0.25 * static_cast<double>(k)));
        if (k + 1 < overall.size()) CHECK(overall[k]->length_s == doctest::Approx(0.25));
        CHECK(overall[k]->count == overall[k]->histogram().count());
    }
    CHECK(overall.back()->at_s + overall.back()->length_s == doctest::Approx(report.duration_s).epsilon(1e-6));
    CHECK(report.timeline.size() <= overall.size());

    std::uint64_t sum = 0;
    for (const auto* i : overall) sum += i->count;
    CHECK(sum == report.overall.histogram.count());
    intervals_test::check_same_histogram(intervals_test::merged_intervals(report, ""), report.overall.histogram);
    for (const auto& tool : {"echo", "add"}) {
        INFO(tool);
        REQUIRE(report.per_tool.count(tool) == 1);
        intervals_test::check_same_histogram(intervals_test::merged_intervals(report, tool),
                                             report.per_tool.at(tool).histogram);
    }
    // Round trip through JSON keeps them.
    const mlt::load_report back = mlt::json(report).get<mlt::load_report>();
    REQUIRE(back.intervals.size() == report.intervals.size());
    CHECK(back.intervals[3].hdr == report.intervals[3].hdr);
    CHECK(back.started_at_unix_ns == report.started_at_unix_ns);
    CHECK_FALSE(back.shard_index.has_value());

    // The hlog: one line per interval, untagged for "", Tag=<tool> for the others.
    const std::string hlog = mlt::to_hlog(report);
    CHECK(hlog.rfind("#[Histogram log format version 1.3]\n", 0) == 0);
    CHECK(hlog.find("#[StartTime: ") != std::string::npos);
    std::size_t tagged = 0, untagged = 0;
    std::istringstream lines(hlog);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#' || line[0] == '"') continue;
        (line.rfind("Tag=", 0) == 0 ? tagged : untagged) += 1;
    }
    CHECK(untagged == overall.size());
    CHECK(tagged == report.intervals.size() - overall.size());
}

TEST_CASE("intervals: hlog tags lose the characters the format splits on") {
    CHECK(mlt::hlog_tag("get_market_data") == "get_market_data");
    CHECK(mlt::hlog_tag("my tool,v2\n") == "my_tool_v2_");
    mlt::load_report r;  // no wall-clock start: no StartTime line, timestamps from 0
    r.intervals.push_back({0, 1, "a b", 0, mlt::to_hdr_base64(mlt::latency_histogram{})});
    const auto text = mlt::to_hlog(r);
    CHECK(text.find("#[StartTime") == std::string::npos);
    CHECK(text.find("\nTag=a_b,0.000,1.000,0.000,HIST") != std::string::npos);
}

TEST_CASE("merge: counts add, histograms merge exactly, intervals align by wall clock, thresholds judge the merge") {
    using intervals_test::synthetic;
    const std::int64_t t0 = 1'764'000'000'000'000'000;
    std::vector<std::uint64_t> a_values, b_values;
    for (std::uint64_t i = 0; i < 300; ++i) a_values.push_back(100 + i * 7);
    for (std::uint64_t i = 0; i < 150; ++i) b_values.push_back(5'000 + i * 131);
    std::vector<mlt::load_report> reports{synthetic(t0, a_values, "echo"), synthetic(t0 + 1'200'000'000, b_values, "echo")};
    reports[1].processes.push_back({});

    const auto merged = mlt::merge_reports(reports);
    CHECK(merged.merged_from == 2);
    CHECK(merged.overall.calls() == 450);
    CHECK(merged.per_tool.at("echo").calls() == 450);
    CHECK(merged.iterations_started == 450);
    mlt::latency_histogram all;
    for (auto v : a_values) all.record(std::chrono::microseconds(v));
    for (auto v : b_values) all.record(std::chrono::microseconds(v));
    intervals_test::check_same_histogram(merged.overall.histogram, all);
    CHECK(merged.overall.latency == all.summary());
    intervals_test::check_same_histogram(intervals_test::merged_intervals(merged, ""), all);
    // B started 1.2 s later: its intervals 0, 1, 2 hold their midpoints in merged intervals 1, 2, 3.
    CHECK(merged.duration_s == doctest::Approx(4.2));
    CHECK(merged.throughput_rps == doctest::Approx(450 / 4.2));
    std::vector<std::uint64_t> counts;
    for (const auto& i : merged.intervals)
        if (i.tag.empty()) counts.push_back(i.count);
    CHECK(counts == std::vector<std::uint64_t>{100, 150, 150, 50, 0});
    CHECK(merged.timeline.size() == 4);
    CHECK(merged.timeline[1].completed == 150);
    REQUIRE(merged.processes.size() == 1);
    CHECK(merged.processes[0].source == 1u);
    CHECK(merged.merge_notes.empty());
    CHECK(merged.passed);

    // Judged as one run: p99 is the merged one (B's slow calls), which neither A alone would fail.
    const mlt::thresholds slo{.p99 = std::chrono::milliseconds(10)};
    CHECK(mlt::merge_reports(std::span(reports.data(), 1), slo).passed);
    const auto judged = mlt::merge_reports(reports, slo);
    CHECK_FALSE(judged.passed);
    REQUIRE(judged.violations.size() == 1);
    CHECK(judged.violations[0].metric == "p99");

    // JSON: the merge members round-trip.
    const auto back = mlt::json(merged).get<mlt::load_report>();
    CHECK(back.merged_from == 2);
    CHECK(back.processes[0].source == 1u);

    // A report without a wall-clock start is aligned at the start, and the merge says so.
    reports[1].started_at_unix_ns = 0;
    const auto unaligned = mlt::merge_reports(reports);
    CHECK(unaligned.duration_s == doctest::Approx(3.0));
    REQUIRE(unaligned.merge_notes.size() == 1);
    CHECK(unaligned.merge_notes[0].find("report[1] has no wall-clock start") != std::string::npos);
}

TEST_CASE("merge: the shards' authorization sections add up and are judged again as one run") {
    using intervals_test::synthetic;
    const std::int64_t t0 = 1'764'000'000'000'000'000;
    const std::vector<std::uint64_t> values{100, 200, 300};
    std::vector<mlt::load_report> reports{synthetic(t0, values, "echo"), synthetic(t0, values, "echo"),
                                          synthetic(t0, values, "echo")};
    // Each shard's sessions were blocked 3 % of their time: under the bar. Shard 2 used no OAuth.
    for (std::size_t k = 0; k < 2; ++k) {
        mlt::authorization_report a;
        a.authorizations = 1;
        a.refreshes = 5 + k;
        a.challenges = 2;
        a.requests = 9;
        a.token_time_s = 0.5;
        a.slowest_token_ms = 100.0 * static_cast<double>(k + 1);
        a.token_endpoint = "http://127.0.0.1:1/token";
        a.held_calls = 4;
        a.held_s = 1.5;
        a.blocked_s = 0.03 * static_cast<double>(reports[k].sessions) * reports[k].duration_s;
        mlt::detail::judge_authorization(a, reports[k].sessions, reports[k].duration_s);
        CHECK_FALSE(a.bottleneck);
        reports[k].authorization = a;
    }
    auto merged = mlt::merge_reports(reports);
    REQUIRE(merged.authorization);
    const auto& m = *merged.authorization;
    CHECK(m.authorizations == 2);
    CHECK(m.refreshes == 11);
    CHECK(m.held_calls == 8);
    CHECK(m.token_time_s == doctest::Approx(1.0));
    CHECK(m.slowest_token_ms == doctest::Approx(200.0));
    CHECK(m.held_s == doctest::Approx(3.0));
    CHECK(m.blocked_share == doctest::Approx(m.blocked_s / (static_cast<double>(merged.sessions) * merged.duration_s)));
    CHECK_FALSE(m.bottleneck);
    // Shard 0 was blocked 30 %: the merged run is judged on the sum, and says where tokens came from.
    reports[0].authorization->blocked_s *= 10;
    merged = mlt::merge_reports(reports);
    CHECK(merged.authorization->bottleneck);
    CHECK(merged.authorization->explanation.find("(http://127.0.0.1:1/token) was the bottleneck") != std::string::npos);
    // A report without the section reads back without it; one with it keeps it.
    CHECK_FALSE(mlt::json(reports[2]).contains("authorization"));
    CHECK_FALSE(mlt::json(reports[2]).get<mlt::load_report>().authorization);
    CHECK(mlt::json(merged).get<mlt::load_report>().authorization->held_calls == 8);
}

TEST_CASE("merge: refuses nothing, other workloads and other servers, with what to do") {
    using intervals_test::synthetic;
    const std::vector<std::uint64_t> values{100, 200, 300};
    std::vector<mlt::load_report> none;
    CHECK_THROWS_WITH_AS(mlt::merge_reports(none), doctest::Contains("no reports to merge"), std::invalid_argument);
    std::vector<mlt::load_report> two{synthetic(1, values, "echo"), synthetic(1, values, "echo")};
    two[1].workload_parameters["rate"] = 20;
    CHECK_THROWS_WITH_AS(mlt::merge_reports(two), doctest::Contains("ran another workload"), std::invalid_argument);
    two[1].workload_parameters = two[0].workload_parameters;
    two[1].workload_parameters["this_shard"] = {{"rate", 5}};  // a shard's own part does not count
    CHECK(mlt::merge_reports(two).overall.calls() == 6);
    two[1].server = "http://10.0.0.2:8080/mcp";
    CHECK_THROWS_WITH_AS(mlt::merge_reports(two), doctest::Contains("measured another server"), std::invalid_argument);
    // Replicas at other addresses: allowed when they report the same implementation.
    for (auto& r : two) {
        r.server_name = "echo";
        r.server_version = "1.0";
    }
    CHECK(mlt::merge_reports(two).server == "python3 echo_server.py | http://10.0.0.2:8080/mcp");
}

TEST_CASE("shard: workloads divide with remainders, seeds differ, the environment is read strictly") {
    const mlt::workload closed = mlt::closed_load{.users = 7, .duration = 1s, .max_iterations = 10};
    std::size_t users = 0;
    std::uint64_t iterations = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const mlt::shard_spec s{.index = i, .count = 3};
        const auto part = std::get<mlt::closed_load>(mlt::shard_workload(closed, s));
        users += part.users;
        iterations += part.max_iterations;
        CHECK(part.duration == 1s);
    }
    CHECK(users == 7);
    CHECK(iterations == 10);
    const mlt::shard_spec second{.index = 1, .count = 4};
    CHECK(std::get<mlt::open_load>(mlt::shard_workload(mlt::open_load{.rate = 100}, second)).rate == 25);
    CHECK(mlt::shard_seed(42, {.index = 0, .count = 4}) == 42);
    CHECK(mlt::shard_seed(42, second) != 42);
    CHECK_THROWS_AS((void)mlt::shard_workload(closed, {.index = 3, .count = 3}), std::invalid_argument);

    ::setenv("MCP_LOADTEST_SHARD", "2/3", 1);
    ::setenv("MCP_LOADTEST_SHARD_START", "1764000000.5", 1);
    const auto s = mlt::shard_from_environment();
    CHECK(s.index == 2);
    CHECK(s.count == 3);
    CHECK(s.start.time_since_epoch() == std::chrono::milliseconds(1'764'000'000'500));
    ::setenv("MCP_LOADTEST_SHARD", "3/3", 1);
    CHECK_THROWS_WITH_AS((void)mlt::shard_from_environment(), doctest::Contains("not i/N"), std::invalid_argument);
    ::setenv("MCP_LOADTEST_SHARD", "1/3", 1);
    ::setenv("MCP_LOADTEST_SHARD_START", "soon", 1);
    CHECK_THROWS_WITH_AS((void)mlt::shard_from_environment(), doctest::Contains("not a Unix time"), std::invalid_argument);
    ::unsetenv("MCP_LOADTEST_SHARD");
    ::unsetenv("MCP_LOADTEST_SHARD_START");
    CHECK_FALSE(mlt::shard_from_environment().sharded());
}

// ---- run by CTest only (tests/CMakeLists.txt registers them with their environment) -------------

/// MCP_LOADTEST_HLOG_JAVA and MCP_LOADTEST_HLOG_JAR: HdrHistogram's own HistogramLogProcessor reads
/// our .hlog; its count, max and every row of its percentile distribution must match ours.
MCP_LOADTEST_CASE("hlog: HdrHistogram's HistogramLogProcessor reads our log and agrees" * doctest::skip()) {
    const char* java = std::getenv("MCP_LOADTEST_HLOG_JAVA");
    const char* jar = std::getenv("MCP_LOADTEST_HLOG_JAR");
    const char* dir = std::getenv("MCP_LOADTEST_HLOG_DIR");
    REQUIRE_MESSAGE((java && jar && dir), "set MCP_LOADTEST_HLOG_JAVA, MCP_LOADTEST_HLOG_JAR and MCP_LOADTEST_HLOG_DIR");
    auto server = fixture("echo_server.py");
    mlt::run_options options;
    options.timeline_bucket = 250ms;
    options.sample_interval = 0ms;
    const auto calls = intervals_test::echo_and_add();
    const mlt::workload load = mlt::open_load{.rate = 200, .duration = 1s};
    const mlt::thresholds no_errors{.error_rate = 0.0};
    auto report = co_await mlt::run(server, load, calls, no_errors, options);
    MCP_REQUIRE_PASSED(report);
    std::filesystem::create_directories(dir);
    const auto hlog = std::filesystem::path(dir) / "run.hlog";
    std::ofstream(hlog) << mlt::to_hlog(report);

    // Values are microseconds: -outputValueUnitRatio 1000 prints milliseconds.
    const std::array<std::string, 2> tags{"", "echo"};
    for (const std::string& tag : tags) {
        INFO("tag \"" << tag << "\"");
        const auto out = std::filesystem::path(dir) / (tag.empty() ? "all.txt" : tag + ".txt");
        const std::string command = "timeout 60 '" + std::string(java) + "' -cp '" + jar +
                                    "' org.HdrHistogram.HistogramLogProcessor -i '" + hlog.string() +
                                    "' -outputValueUnitRatio 1000" + (tag.empty() ? "" : " -tag " + tag) + " > '" +
                                    out.string() + "' 2>&1";
        REQUIRE(std::system(command.c_str()) == 0);
        const auto& ours = tag.empty() ? report.overall.histogram : report.per_tool.at(tag).histogram;
        std::istringstream text(intervals_test::read_text(out));
        std::size_t rows = 0;
        bool saw_total = false, saw_max = false;
        for (std::string line; std::getline(text, line);) {
            double value_ms = 0, percentile = 0;
            unsigned long long total = 0;
            double max_ms = 0;
            unsigned long long count = 0;
            if (std::sscanf(line.c_str(), "#[Max = %lf, Total count = %llu]", &max_ms, &count) == 2) {
                saw_max = saw_total = true;
                CHECK(count == ours.count());
                // Its max: the highest value equivalent to the top bucket, as our decoded histogram gives.
                const auto max_us = mlt::latency_histogram::highest_equivalent_us(
                    mlt::latency_histogram::index_of(ours.max()));
                CHECK(max_ms == doctest::Approx(static_cast<double>(max_us) / 1000.0).epsilon(1e-6));
            } else if (line.find('#') == std::string::npos &&
                       std::sscanf(line.c_str(), " %lf %lf %llu", &value_ms, &percentile, &total) == 3) {
                // A distribution row: `total` values at or below `value`: count ours there.
                const auto value_us = static_cast<std::uint64_t>(std::llround(value_ms * 1000));
                const std::size_t last = mlt::latency_histogram::index_of_us(value_us);
                std::uint64_t at_or_below = 0;
                for (std::size_t i = 0; i <= last; ++i) at_or_below += ours.count_at_index(i);
                CHECK(at_or_below == total);
                ++rows;
            }
        }
        CHECK(saw_total);
        CHECK(saw_max);
        CHECK(rows > 10);
        MESSAGE("HistogramLogProcessor" << (tag.empty() ? "" : " -tag " + tag) << ": " << rows
                                        << " distribution rows agree, count " << ours.count());
    }
}

namespace intervals_test {
inline std::filesystem::path shard_dir() {
    const char* dir = std::getenv("MCP_LOADTEST_SHARD_DIR");
    REQUIRE_MESSAGE(dir, "MCP_LOADTEST_SHARD_DIR is not set: run it through ctest (reports: shard ...)");
    return dir;
}
inline constexpr double shard_rate = 150;  // the whole run's; 50 per shard
}  // namespace intervals_test

/// One shard of a 3-shard run: MCP_LOADTEST_SHARD=i/3 from CTest; the start from the file the
/// setup test wrote (MCP_LOADTEST_SHARD_START, as a Kubernetes Job would set it).
MCP_LOADTEST_CASE("shard: run one shard of a sharded run" * doctest::skip()) {
    const auto dir = intervals_test::shard_dir();
    const std::string start = intervals_test::read_text(dir / "start");
    REQUIRE_FALSE(start.empty());
    ::setenv("MCP_LOADTEST_SHARD_START", start.c_str(), 1);
    mlt::run_options options;
    options.shard = mlt::shard_from_environment();
    options.timeline_bucket = 500ms;
    options.sample_interval = 250ms;
    REQUIRE(options.shard.count == 3);
    auto server = fixture("echo_server.py");
    const auto calls = intervals_test::echo_and_add();
    const mlt::workload load = mlt::open_load{.rate = intervals_test::shard_rate, .duration = 2s};
    const mlt::thresholds no_errors{.error_rate = 0.0};
    auto report = co_await mlt::run(server, load, calls, no_errors, options);
    MCP_REQUIRE_PASSED(report);
    CHECK(report.shard_index == options.shard.index);
    CHECK(report.shard_count == 3u);
    CHECK(report.workload_parameters["rate"] == intervals_test::shard_rate);
    CHECK(report.workload_parameters["this_shard"]["rate"] == intervals_test::shard_rate / 3);
    // It did not start before the agreed time.
    const auto agreed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(options.shard.start.time_since_epoch());
    CHECK(report.started_at_unix_ns >= agreed_ns.count());
    MESSAGE("shard " << options.shard.index << " started " << (report.started_at_unix_ns - agreed_ns.count()) / 1e6
                     << " ms after the agreed start; " << report.overall.calls() << " calls");
    const auto path = dir / ("shard-" + std::to_string(options.shard.index) + ".json");
    std::ofstream(path.string() + ".tmp") << mlt::json(report).dump();
    std::filesystem::rename(path.string() + ".tmp", path);
}

TEST_CASE("shard: the merged shards are one run" * doctest::skip()) {
    const auto dir = intervals_test::shard_dir();
    std::vector<mlt::load_report> shards;
    for (int i = 0; i < 3; ++i)
        shards.push_back(mlt::json::parse(intervals_test::read_text(dir / ("shard-" + std::to_string(i) + ".json")))
                             .get<mlt::load_report>());
    const mlt::thresholds slo{.p99 = 2s, .error_rate = 0.0};
    const auto merged = mlt::merge_reports(shards, slo);
    MCP_CHECK_PASSED(merged);
    std::uint64_t calls = 0, started = 0;
    std::set<std::uint64_t> seeds;
    std::set<std::size_t> indices;
    // Independently: one histogram holding every shard's values, from the shards' own intervals.
    mlt::latency_histogram every_value, every_exact;
    for (const auto& s : shards) {
        every_exact.merge(s.overall.histogram);
        calls += s.overall.calls();
        started += s.iterations_started;
        seeds.insert(s.seed);
        indices.insert(*s.shard_index);
        every_value.merge(intervals_test::merged_intervals(s, ""));
    }
    CHECK(seeds.size() == 3);
    CHECK(indices == std::set<std::size_t>{0, 1, 2});
    CHECK(merged.overall.calls() == calls);
    CHECK(merged.iterations_started == started);
    CHECK(calls == doctest::Approx(intervals_test::shard_rate * 2).epsilon(0.1));
    intervals_test::check_same_histogram(merged.overall.histogram, every_value);
    // And exactly, against the shards' own histograms merged here.
    CHECK(merged.overall.latency == every_exact.summary());
    for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) CHECK(merged.overall.histogram.percentile(p) == every_exact.percentile(p));
    intervals_test::check_same_histogram(intervals_test::merged_intervals(merged, ""), every_value);
    CHECK(merged.processes.size() == 3);
    for (std::size_t k = 0; k < merged.processes.size(); ++k) CHECK(merged.processes[k].source == k);
    // Thresholds judge the merged report: a p50 no shard could meet fails it, named once.
    const auto strict = mlt::merge_reports(shards, mlt::thresholds{.p50 = std::chrono::nanoseconds(1)});
    CHECK_FALSE(strict.passed);
    REQUIRE(strict.violations.size() == 1);
    CHECK(strict.violations[0].metric == "p50");
    std::int64_t first = shards[0].started_at_unix_ns, last = first;
    for (const auto& s : shards) {
        first = std::min(first, s.started_at_unix_ns);
        last = std::max(last, s.started_at_unix_ns);
    }
    MESSAGE("3 shards, " << calls << " calls, p99 " << merged.overall.latency.p99.count() / 1000 << " us; starts spread over "
                         << (last - first) / 1e6 << " ms (near 0 when ctest ran them in parallel); merged span "
                         << merged.duration_s << " s");
    // Both shapes (shard_index / shard_count, merged_from / merge_notes / source) match the schema.
    const auto schema = mlt_test::load_json(mlt_test::repo_dir + "/docs/schema/load_report.schema.json");
    for (const mlt::json& j : {mlt::json(shards[1]), mlt::json(merged), mlt::json(mlt::merge_reports(shards))}) {
        const auto problems = mlt_test::validate(j, schema);
        for (const auto& p : problems) CHECK_MESSAGE(false, p);
    }
    std::ofstream(dir / "merged.json") << mlt::json(merged).dump();
    std::ofstream(dir / "merged.hlog") << mlt::to_hlog(merged);
}
