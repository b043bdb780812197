// Conan test_package (also built by .ci/check-packaging.sh against an installed prefix):
// compiles the session and load-engine headers and, without a server, builds tool
// arguments, records latencies and round-trips a load report through its JSON form.
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/version.hpp>

#include <chrono>
#include <cstdio>

namespace mlt = mcp_loadtest;

int main() {
    const mlt::json arguments = mlt::args("ticker", "AAPL", "days", 5);
    if (arguments.at("days") != 5) return 1;

    mlt::load_report report;
    report.run_id = "test_package";
    report.workload = "closed";
    report.server = "none";
    for (int ms = 1; ms <= 100; ++ms) {
        report.overall.outcomes.add(mlt::outcome::ok);
        report.overall.histogram.record(std::chrono::milliseconds{ms});
    }
    report.overall.finalize();
    report.passed = true;

    const auto p99 = report.overall.histogram.percentile(99.0);
    if (p99 < std::chrono::milliseconds{90} || p99 > std::chrono::milliseconds{110}) return 1;

    const mlt::json j = report;
    const auto back = j.get<mlt::load_report>();
    if (back.overall.calls() != 100 || !back.passed) return 1;

#ifdef MCP_LOADTEST_WITH_TLS
    const char* tls = "on";
#else
    const char* tls = "off";
#endif
    std::printf("mcp-loadtest %s: TLS %s, %zu bytes of report JSON, p99 %lld us\n", mlt::version_string, tls,
                j.dump().size(), static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(p99).count()));
    return 0;
}
