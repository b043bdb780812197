// Run directories (report/run_directory.hpp) and the current case (detail/testing/current_case.hpp).
#include <mcp_loadtest/detail/session/session_stderr.hpp>
#include <mcp_loadtest/report/run_directory.hpp>
#include <mcp_loadtest/run.hpp>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace run_directory_test {

namespace fs = std::filesystem;

/// A fresh, empty directory under the system's temporary directory.
inline fs::path fresh_dir(const std::string& what) {
    const fs::path dir = fs::temp_directory_path() /
                         ("mlt-rundir-" + what + "-" + std::to_string(::getpid()) + "-" +
                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::size_t count_lines_with(const fs::path& p, const std::string& needle) {
    std::ifstream in(p);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);)
        if (line.find(needle) != std::string::npos) ++n;
    return n;
}

inline std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace run_directory_test

TEST_CASE("run directory: names come from the case, slugified") {
    CHECK(mlt::detail::slugify("Checkout flow: p99 < 200 ms!") == "checkout-flow-p99-200-ms");
    CHECK(mlt::detail::slugify("EchoServer.FirstCallAnswers") == "echoserver.firstcallanswers");
    CHECK(mlt::detail::slugify("..") == "case");
    CHECK(mlt::detail::slugify("///") == "case");
    CHECK(mlt::detail::slugify(std::string(200, 'a')).size() == 80);
    // Outside an MCP_LOADTEST_CASE there is no current case.
    CHECK(mlt::current_case() == nullptr);
}

MCP_LOADTEST_CASE_LIMIT(37s, "run directory: the running case is known to the library and registered") {
    const auto* c = mlt::current_case();
    REQUIRE(c != nullptr);
    CHECK(c->name == "run directory: the running case is known to the library and registered");
    CHECK(c->framework == "doctest");
    CHECK(c->time_limit == 37s);
    const auto& all = mlt::detail::case_registry();
    CHECK(std::any_of(all.begin(), all.end(), [&](const mlt::case_info& i) { return &i == c; }));
    // The listing CTest discovery reads names it with its limit.
    const auto listing = mlt::detail::case_registry_listing();
    CHECK(listing.find(R"({"name":"run directory: the running case is known to the library and registered","framework":)"
                       R"("doctest","time_limit_ms":37000,"slug":"run-directory-the-running-case-is-known-to-the-library-)"
                       R"(and-registered")") != std::string::npos);
    co_return;
}

TEST_CASE("run directory: the default root is beside the test program, wherever it was started from") {
    const char* saved = std::getenv("MCP_LOADTEST_RUN_ROOT");
    const std::string kept = saved ? saved : "";
    ::unsetenv("MCP_LOADTEST_RUN_ROOT");
    const auto root = mlt::run_root();
    CHECK(root.is_absolute());
    CHECK(root.filename() == "mcp-loadtest-runs");
    CHECK(std::filesystem::exists(root.parent_path() / "test_reports"));  // this program's own directory
    ::setenv("MCP_LOADTEST_RUN_ROOT", "/tmp/elsewhere", 1);
    CHECK(mlt::run_root() == "/tmp/elsewhere");
    CHECK(mlt::run_root("given") == "given");
    if (saved) ::setenv("MCP_LOADTEST_RUN_ROOT", kept.c_str(), 1);
    else ::unsetenv("MCP_LOADTEST_RUN_ROOT");
}

TEST_CASE("run directory: atomic writes replace whole files and a killed writer leaves no partial file") {
    namespace fs = std::filesystem;
    const auto dir = run_directory_test::fresh_dir("atomic");
    const auto target = dir / "report.json";
    mlt::detail::write_file_atomically(target, "first");
    mlt::detail::write_file_atomically(target, "second, longer");
    CHECK(run_directory_test::slurp(target) == "second, longer");
    CHECK(run_directory_test::names_in(dir) == std::vector<std::string>{"report.json"});  // no temporaries left
    // A directory that does not exist: a clear error, nothing written.
    CHECK_THROWS_WITH_AS(mlt::detail::write_file_atomically(dir / "missing" / "x.json", "x"),
                         doctest::Contains("writable"), std::runtime_error);

    // A writer killed (SIGKILL) in the middle of 8 MB writes: the target is the old
    // whole file or the new whole one, never a prefix.
    const std::string big_a(8 << 20, 'a');
    const std::string big_b(8 << 20, 'b');
    mlt::detail::write_file_atomically(target, big_a);
    for (int round = 0; round < 5; ++round) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            for (int i = 0;; ++i) mlt::detail::write_file_atomically(target, i % 2 ? big_a : big_b);
        }
        ::usleep(20000 + 15000 * round);
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        const auto text = run_directory_test::slurp(target);
        CHECK(text.size() == big_a.size());
        CHECK((text == big_a || text == big_b));
    }
    fs::remove_all(dir);
}

TEST_CASE("run directory: run() decides on a run directory: in a case or when asked, never when switched off") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("decide");
    mlt::any_server server = mlt::stdio_server{"true", {}};
    mlt::run_options options;
    // Outside a case and no root: none.
    CHECK_FALSE(mlt::detail::run_directory_recorder::open(options, server).has_value());
    // Asked for by root: one, named "run", with the trace and the stderr logs in it.
    options.run_directory.root = root;
    auto r = mlt::detail::run_directory_recorder::open(options, server);
    REQUIRE(r.has_value());
    CHECK(r->path().parent_path() == root / "run");
    CHECK(options.trace_path == r->path() / "trace.jsonl");
    const auto& stdio = std::get<mlt::stdio_server>(server);
    CHECK(stdio.stderr_to == mlt::stderr_mode::tee);
    CHECK(mlt::detail::server_for_session(server, 3).index() == server.index());
    CHECK(std::get<mlt::stdio_server>(mlt::detail::server_for_session(server, 3)).stderr_path ==
          r->path() / "stderr-3.log");
    // A trace path and a stderr mode the user chose are kept.
    mlt::any_server quiet = mlt::stdio_server{"true", {}, {}, true, {}, mlt::stderr_mode::discard};
    mlt::run_options own;
    own.run_directory.root = root;
    own.trace_path = root / "mine.jsonl";
    REQUIRE(mlt::detail::run_directory_recorder::open(own, quiet).has_value());
    CHECK(own.trace_path == root / "mine.jsonl");
    CHECK(std::get<mlt::stdio_server>(quiet).stderr_to == mlt::stderr_mode::discard);
    // Switched off: by the option, and by the environment.
    mlt::run_options off;
    off.run_directory.root = root;
    off.run_directory.enabled = false;
    CHECK_FALSE(mlt::detail::run_directory_recorder::open(off, server).has_value());
    ::setenv("MCP_LOADTEST_RUN_DIRECTORY", "off", 1);
    CHECK_FALSE(mlt::detail::run_directory_recorder::open(options, server).has_value());
    ::unsetenv("MCP_LOADTEST_RUN_DIRECTORY");
    // Several within one second get distinct directories.
    const auto a = mlt::create_run_directory(root, "same");
    const auto b = mlt::create_run_directory(root, "same");
    CHECK(a != b);
    CHECK(a.parent_path() == b.parent_path());
    fs::remove_all(root);
}

TEST_CASE("run directory: write_run_directory writes every form, points latest at it and keeps the newest") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("write");
    mlt::load_report report;
    report.run_id = "r1";
    report.overall.outcomes.add(mlt::outcome::ok);
    report.overall.histogram.record(std::chrono::milliseconds(3));
    mlt::run_directory_options o;
    o.root = root;
    o.name = "Nightly soak";
    o.keep = 2;
    std::vector<fs::path> written;
    for (int i = 0; i < 4; ++i) {
        const auto result = mlt::write_run_directory(report, o);
        CHECK(result.ok());
        CHECK(mlt::last_run_directory().path == result.path);
        written.push_back(result.path);
    }
    const fs::path latest = root / "nightly-soak" / "latest";
    REQUIRE(fs::is_symlink(latest));
    CHECK(fs::canonical(latest) == fs::canonical(written.back()));
    CHECK(run_directory_test::names_in(latest) ==
          std::vector<std::string>{"latency.hlog", "report.html", "report.json", "report.md"});
    const auto back = mlt::json::parse(run_directory_test::slurp(latest / "report.json")).get<mlt::load_report>();
    CHECK(back.run_id == "r1");
    CHECK(back.overall.outcomes.total() == 1);
    CHECK(run_directory_test::slurp(latest / "report.md").find('#') != std::string::npos);
    CHECK(run_directory_test::slurp(latest / "report.html").find("<html") != std::string::npos);
    // keep = 2: the two oldest are gone, the newest two and `latest` remain.
    CHECK(run_directory_test::names_in(root / "nightly-soak").size() == 3);
    CHECK_FALSE(fs::exists(written[0]));
    CHECK(fs::exists(written[2]));

    // An unwritable root: nothing thrown, the reason is returned.
    std::ofstream(root / "a-file") << "x";
    o.root = root / "a-file" / "below";
    const auto failed = mlt::write_run_directory(report, o);
    CHECK_FALSE(failed.ok());
    CHECK(failed.error.find("a-file") != std::string::npos);
    fs::remove_all(root);
}

MCP_LOADTEST_CASE("run directory: a case's load run writes its run directory, stderr per session included") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("case");
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::closed_load{.users = 4, .duration = 1s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "hi"));
    mlt::run_options options;
    options.sessions = 2;
    options.sample_interval = 200ms;
    options.run_directory.root = root;  // the case's name still names it
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    REQUIRE(report.overall.outcomes.total() > 0);

    const auto& where = mlt::last_run_directory();
    CHECK(where.ok());
    CHECK(where.path.parent_path() ==
          root / mlt::detail::slugify("run directory: a case's load run writes its run directory, stderr per session included"));
    const fs::path latest = where.path.parent_path() / "latest";
    CHECK(fs::canonical(latest) == fs::canonical(where.path));
    CHECK(run_directory_test::names_in(latest) ==
          std::vector<std::string>{"latency.hlog", "report.html", "report.json", "report.md", "stderr-0.log",
                                   "stderr-1.log", "trace.jsonl"});
    const auto back = mlt::json::parse(run_directory_test::slurp(latest / "report.json")).get<mlt::load_report>();
    CHECK(back.overall.outcomes.total() == report.overall.outcomes.total());
    CHECK(back.run_id == report.run_id);
    // One trace line per call (the measured ones: the engine traces tools/call).
    CHECK(run_directory_test::count_lines_with(latest / "trace.jsonl", R"("kind":"call")") ==
          report.per_method["tools/call"].outcomes.total());
    CHECK(run_directory_test::slurp(latest / "latency.hlog").find("Histogram log format") != std::string::npos);
    fs::remove_all(root);
}

MCP_LOADTEST_CASE("run directory: a server that crashes mid-run still gets its report and its stderr written") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("crash");
    auto server = fixture("crash_server.py", {"--after", "20"});
    const mlt::workload load = mlt::open_load{.rate = 50, .duration = 1s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::run_options options;
    options.run_directory.root = root;
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    CHECK(report.crashes() >= 1);
    const fs::path dir = mlt::last_run_directory().path;
    REQUIRE(fs::exists(dir / "report.json"));
    const auto back = mlt::json::parse(run_directory_test::slurp(dir / "report.json")).get<mlt::load_report>();
    CHECK(back.crashes() == report.crashes());
    CHECK(back.overall.outcomes[mlt::outcome::ok] == report.overall.outcomes[mlt::outcome::ok]);
    CHECK(back.overall.outcomes[mlt::outcome::ok] >= 19);
    CHECK(run_directory_test::slurp(dir / "stderr-0.log").find("simulated crash") != std::string::npos);
    fs::remove_all(root);
}

MCP_LOADTEST_CASE("run directory: an unwritable run root costs the run directory, not the measurement") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("unwritable");
    std::ofstream(root / "a-file") << "not a directory";
    auto server = fixture("echo_server.py");
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 500ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::run_options options;
    options.run_directory.root = root / "a-file" / "runs";
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    CHECK(report.overall.outcomes[mlt::outcome::ok] > 0);
    CHECK(report.passed);
    CHECK(mlt::last_run_directory().path.empty());
    CHECK(mlt::last_run_directory().error.find("a-file") != std::string::npos);
    fs::remove_all(root);
}

MCP_LOADTEST_CASE("run directory: a run that throws leaves error.txt saying why, beside the server's stderr") {
    namespace fs = std::filesystem;
    const auto root = run_directory_test::fresh_dir("threw");
    auto server = fixture("echo_server.py", {"--no-such-flag"});  // exits at once: it never starts
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 500ms};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::thresholds none;
    mlt::run_options options;
    options.run_directory.root = root;
    std::string what;
    try {
        co_await mlt::run(server, load, calls, none, options);
    } catch (const std::exception& e) {
        what = e.what();
    }
    REQUIRE_FALSE(what.empty());
    const auto& where = mlt::last_run_directory();
    CHECK(where.ok());
    REQUIRE_FALSE(where.path.empty());
    CHECK(fs::canonical(where.path.parent_path() / "latest") == fs::canonical(where.path));
    CHECK(run_directory_test::slurp(where.path / "error.txt") == "run() threw, so there is no report: " + what + "\n");
    for (const char* report : {"report.json", "report.md", "report.html", "latency.hlog"}) {
        CAPTURE(report);
        CHECK_FALSE(fs::exists(where.path / report));
    }
    CHECK(run_directory_test::slurp(where.path / "stderr-0.log").find("--no-such-flag") != std::string::npos);
    fs::remove_all(root);
}
