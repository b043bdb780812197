// Cases for the setup doctor, doctor() (included by tests/test_detectors.cpp):
// each check against a server that has the problem, and the text functions
// its checks read command lines and versions with.
#pragma once

#include <mcp_loadtest/detail/text/interpreter_text.hpp>
#include <mcp_loadtest/doctor.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace doctor_test {

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

// The assertion macros stay outside the coroutine frame (they use INFO: -Wsubobject-linkage).
inline void check_doctor_ok(const mlt::doctor_report& report) { MCP_CHECK_DOCTOR_OK(report); }
inline void show(const std::string& text) { MESSAGE(text); }

inline mlt::check_status status_of(const mlt::doctor_report& r, const char* name) {
    const auto* c = r.find(name);
    REQUIRE_MESSAGE(c != nullptr, name);
    return c->status;
}

inline std::string found_of(const mlt::doctor_report& r, const char* name) {
    const auto* c = r.find(name);
    return c ? c->found : std::string();
}

// A Python fixture, with PYTHONUNBUFFERED unset whatever the test's environment
// holds (Python reads an empty value as unset), so the buffering check is decided
// by the server alone.
inline mlt::stdio_server python_fixture(const std::string& script, std::vector<std::string> flags = {}) {
    auto s = fixture(script, std::move(flags));
    s.env["PYTHONUNBUFFERED"] = "";
    return s;
}

// A folder with package.json (engines.node = `engines`, or none when empty) and server.js, which exits at once.
struct node_package {
    std::filesystem::path dir;
    explicit node_package(const std::string& engines) {
        dir = std::filesystem::temp_directory_path() /
              ("mlt-doctor-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
        std::filesystem::create_directories(dir / "dist");
        std::ofstream(dir / "package.json")
            << R"({"name": "fake-mcp-server", "version": "1.0.0")"
            << (engines.empty() ? std::string() : R"(, "engines": {"node": ")" + engines + "\"}") << "}\n";
        std::ofstream(dir / "dist" / "server.js") << "process.exit(0);\n";
    }
    ~node_package() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    node_package(const node_package&) = delete;
    node_package& operator=(const node_package&) = delete;
};

}  // namespace doctor_test

// ---- the healthy case, and the report's forms -----------------------------------

MCP_LOADTEST_CASE("doctor: a healthy Python server passes every check, in every form") {
    using namespace doctor_test;
    auto server = python_fixture("echo_server.py");
    auto report = co_await mlt::doctor(server);
    show(report.to_terminal());
    check_doctor_ok(report);
    CHECK(report.passed());
    CHECK(report.transport == "stdio");
    CHECK(status_of(report, "command") == mlt::check_status::ok);
    CHECK(contains(found_of(report, "command"), "python3"));
    CHECK(status_of(report, "interpreter") == mlt::check_status::ok);
    CHECK(contains(found_of(report, "interpreter"), "Python 3."));
    CHECK(status_of(report, "node_version") == mlt::check_status::skipped);
    CHECK(status_of(report, "stays_up") == mlt::check_status::ok);
    CHECK(status_of(report, "clean_stdout") == mlt::check_status::ok);
    CHECK(status_of(report, "initialize") == mlt::check_status::ok);
    CHECK(contains(found_of(report, "initialize"), "echo_server"));
    CHECK(status_of(report, "python_buffering") == mlt::check_status::ok);
    CHECK(contains(found_of(report, "python_buffering"), "flushes them itself"));
    CHECK(contains(report.verdict_sentence(), "SETUP OK"));
    CHECK(contains(report.to_markdown(), "| \xE2\x9C\x85 | initialize |"));
    CHECK(contains(report.to_terminal(), "\xE2\x9C\x85 command"));

    const mlt::json j = report;
    CHECK(j["passed"] == true);
    CHECK(j["checks"][0]["name"] == "command");
    CHECK(j["checks"][0]["status"] == "ok");
    const auto back = j.get<mlt::doctor_report>();
    CHECK(back.checks.size() == report.checks.size());
    CHECK(back.took == report.took);
    CHECK(back.to_markdown() == report.to_markdown());
}

// ---- one case per problem ---------------------------------------------------------

MCP_LOADTEST_CASE("doctor: a command not on PATH is named with the PATH searched, and nothing is started") {
    using namespace doctor_test;
    mlt::stdio_server missing{"mlt-no-such-server", {"--stdio"}};
    missing.env["PATH"] = "/nonexistent/one:/nonexistent/two";
    auto report = co_await mlt::doctor(missing);
    CHECK_FALSE(report.passed());
    CHECK(status_of(report, "command") == mlt::check_status::problem);
    CHECK(contains(found_of(report, "command"), "not on PATH"));
    CHECK(contains(found_of(report, "command"), "/nonexistent/one:/nonexistent/two"));
    CHECK(contains(report.find("command")->fix, "absolute path"));
    for (const char* later : {"interpreter", "stays_up", "clean_stdout", "initialize", "python_buffering"})
        CHECK_MESSAGE(status_of(report, later) == mlt::check_status::skipped, later);
    CHECK(contains(report.verdict_sentence(), "SETUP PROBLEMS"));
    CHECK(contains(report.verdict_sentence(), "Fix: Install it"));

    mlt::stdio_server no_dir = fixture("echo_server.py");
    no_dir.working_dir = "/nonexistent/dir";
    auto dir_report = co_await mlt::doctor(no_dir);
    CHECK(status_of(dir_report, "command") == mlt::check_status::problem);
    CHECK(contains(found_of(dir_report, "command"), "working directory"));
}

MCP_LOADTEST_CASE("doctor: a server that exits before initialize, with its exit code and stderr") {
    using namespace doctor_test;
    auto server = python_fixture("crash_server.py", {"--at-startup"});
    auto report = co_await mlt::doctor(server);
    show(report.to_terminal());
    CHECK_FALSE(report.passed());
    CHECK(status_of(report, "stays_up") == mlt::check_status::problem);
    CHECK(contains(found_of(report, "stays_up"), "exited with code 3 before answering initialize"));
    CHECK(contains(found_of(report, "stays_up"), "simulated crash"));
    CHECK(contains(report.find("stays_up")->fix, "by hand"));
    CHECK(status_of(report, "initialize") == mlt::check_status::skipped);
    CHECK(status_of(report, "python_buffering") == mlt::check_status::skipped);
}

MCP_LOADTEST_CASE("doctor: log lines on stdout before initialize are a problem, quoted") {
    using namespace doctor_test;
    auto report = co_await mlt::doctor(python_fixture("noisy_stdout_server.py"));
    CHECK_FALSE(report.passed());
    CHECK(status_of(report, "clean_stdout") == mlt::check_status::problem);
    CHECK(contains(found_of(report, "clean_stdout"), "\"INFO server starting\""));
    CHECK(contains(report.find("clean_stdout")->fix, "stderr"));
    CHECK(status_of(report, "initialize") == mlt::check_status::ok);
    CHECK(status_of(report, "stays_up") == mlt::check_status::ok);
}

MCP_LOADTEST_CASE("doctor: initialize unanswered within the startup budget, and buffering ruled out") {
    using namespace doctor_test;
    auto slow = python_fixture("slow_init_server.py", {"--delay-ms", "5000"});
    slow.startup_timeout = 600ms;
    slow.shutdown = {.after_stdin_close = 200ms, .after_sigterm = 1s, .after_sigkill = 5s};
    auto report = co_await mlt::doctor(slow);
    show(report.to_terminal());
    CHECK_FALSE(report.passed());
    CHECK(status_of(report, "initialize") == mlt::check_status::problem);
    CHECK(contains(found_of(report, "initialize"), "600 ms"));
    CHECK(contains(report.find("initialize")->fix, "startup_timeout"));
    CHECK(status_of(report, "stays_up") == mlt::check_status::ok);
    // Started again with PYTHONUNBUFFERED=1 it is just as slow: buffering is not the cause.
    CHECK(status_of(report, "python_buffering") == mlt::check_status::ok);
    CHECK(contains(found_of(report, "python_buffering"), "Not the cause"));
}

MCP_LOADTEST_CASE("doctor: Python's buffered stdout is confirmed by a start with PYTHONUNBUFFERED=1") {
    using namespace doctor_test;
    auto buffered = python_fixture("buffered_stdout_server.py");
    buffered.startup_timeout = 1s;
    auto report = co_await mlt::doctor(buffered);
    show(report.to_terminal());
    CHECK_FALSE(report.passed());
    CHECK(status_of(report, "initialize") == mlt::check_status::problem);
    CHECK(status_of(report, "python_buffering") == mlt::check_status::problem);
    CHECK(contains(found_of(report, "python_buffering"), "Confirmed"));
    CHECK(contains(report.find("python_buffering")->fix, "PYTHONUNBUFFERED=1"));

    // Without the confirming start, a warning only.
    mlt::doctor_options unconfirmed;
    unconfirmed.retry_unbuffered = false;
    auto guessed = co_await mlt::doctor(buffered, unconfirmed);
    CHECK(status_of(guessed, "python_buffering") == mlt::check_status::warning);

    // The same server with -u, or flushing its replies itself: no problem.
    auto with_u = buffered;
    with_u.args.insert(with_u.args.begin(), "-u");
    auto fixed = co_await mlt::doctor(with_u);
    check_doctor_ok(fixed);
    CHECK(contains(found_of(fixed, "python_buffering"), "-u"));
    auto flushing = python_fixture("buffered_stdout_server.py", {"--flush"});
    auto flushed = co_await mlt::doctor(flushing);
    check_doctor_ok(flushed);
    CHECK(contains(found_of(flushed, "python_buffering"), "flushes them itself"));
}

MCP_LOADTEST_CASE("doctor: a Node version outside the package's engines.node is a problem" *
                  doctest::skip(std::string(MCP_LOADTEST_NODE).empty())) {
    using namespace doctor_test;
    for (const auto& [engines, expected] :
         std::vector<std::pair<std::string, mlt::check_status>>{{">=99", mlt::check_status::problem},
                                                                {">=18 || ^16.0.0", mlt::check_status::ok},
                                                                {"", mlt::check_status::ok}}) {
        CAPTURE(engines);
        const node_package package(engines);
        mlt::stdio_server server{MCP_LOADTEST_NODE, {"dist/server.js"}};
        server.working_dir = package.dir;
        server.startup_timeout = 2s;
        auto report = co_await mlt::doctor(server);
        CHECK(status_of(report, "interpreter") == mlt::check_status::ok);
        CHECK(found_of(report, "interpreter").rfind("v", 0) == 0);
        CHECK(status_of(report, "node_version") == expected);
        CHECK(contains(found_of(report, "node_version"), "fake-mcp-server"));
        if (!engines.empty()) CHECK(contains(found_of(report, "node_version"), "\"" + engines + "\""));
        if (expected == mlt::check_status::problem) CHECK(contains(report.find("node_version")->fix, "Install a Node"));
        // It exits at once: the checklist says so too.
        CHECK(status_of(report, "stays_up") == mlt::check_status::problem);
        CHECK(status_of(report, "python_buffering") == mlt::check_status::skipped);
    }
}

// ---- the text the checks read ------------------------------------------------------

TEST_CASE("doctor: interpreters, Python's -u, node scripts, npx packages, versions and engines ranges") {
    namespace d = mlt::detail;
    CHECK(d::interpreter_of("/usr/bin/python3.12") == d::interpreter_kind::python);
    CHECK(d::interpreter_of("C:\\Python312\\python.exe") == d::interpreter_kind::python);
    CHECK(d::interpreter_of("py") == d::interpreter_kind::python);
    CHECK(d::interpreter_of("pythonista") == d::interpreter_kind::none);
    CHECK(d::interpreter_of("C:\\Program Files\\nodejs\\npx.cmd") == d::interpreter_kind::npx);
    CHECK(d::interpreter_of("uvx") == d::interpreter_kind::uv);
    CHECK(d::interpreter_of("node") == d::interpreter_kind::node);
    CHECK(d::interpreter_of("./my-server") == d::interpreter_kind::none);

    CHECK(d::python_unbuffered_flag({"-u", "server.py"}));
    CHECK(d::python_unbuffered_flag({"-Su", "server.py"}));
    CHECK(d::python_unbuffered_flag({"-X", "utf8", "-u", "-m", "srv"}));
    CHECK_FALSE(d::python_unbuffered_flag({"server.py", "-u"}));      // the server's own flag
    CHECK_FALSE(d::python_unbuffered_flag({"-m", "srv", "-u"}));
    CHECK_FALSE(d::python_unbuffered_flag({"-c", "print(1)", "-u"}));
    CHECK_FALSE(d::python_unbuffered_flag({"-Xutf8", "server.py"}));  // -X's value holds a u, not -u

    CHECK(d::node_script({"--require", "./preload.js", "dist/index.js", "stdio"}) == "dist/index.js");
    CHECK(d::node_script({"--inspect", "server.mjs"}) == "server.mjs");
    CHECK(d::node_script({"-e", "1"}).empty());
    CHECK(d::npx_package({"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"}) ==
          "@modelcontextprotocol/server-everything");
    CHECK(d::npx_package({"--package=mcp-thing@latest", "mcp-thing"}) == "mcp-thing");
    CHECK(d::npx_package({"--yes"}).empty());

    CHECK(d::find_version("v20.20.2") == d::version_number{20, 20, 2});
    CHECK(d::find_version("Python 3.11.7") == d::version_number{3, 11, 7});
    CHECK(d::find_version("uv 0.4.18 (7b55e9790 2024-10-01)") == d::version_number{0, 4, 18});
    CHECK_FALSE(d::find_version("no version here 12").has_value());

    const d::version_number v20{20, 11, 1}, v18{18, 2, 0}, v16{16, 0, 0};
    CHECK(d::satisfies_range(v20, ">=18") == true);
    CHECK(d::satisfies_range(v16, ">=18") == false);
    CHECK(d::satisfies_range(v20, ">= 18.0.0") == true);
    CHECK(d::satisfies_range(v20, "^18.0.0") == false);
    CHECK(d::satisfies_range(v18, "^18.0.0") == true);
    CHECK(d::satisfies_range(v18, "~18.2") == true);
    CHECK(d::satisfies_range(d::version_number{18, 3, 0}, "~18.2") == false);
    CHECK(d::satisfies_range(v20, ">=18 <21") == true);
    CHECK(d::satisfies_range(d::version_number{21, 0, 0}, ">=18 <21") == false);
    CHECK(d::satisfies_range(d::version_number{19, 0, 0}, "18.x || >=20") == false);
    CHECK(d::satisfies_range(v20, "18.x || >=20") == true);
    CHECK(d::satisfies_range(d::version_number{18, 9, 9}, "16 - 18") == true);
    CHECK(d::satisfies_range(d::version_number{19, 0, 0}, "16 - 18") == false);
    CHECK(d::satisfies_range(v16, "*") == true);
    CHECK(d::satisfies_range(v20, ">v18.0.0") == true);
    CHECK(d::satisfies_range(v20, "^0.2.3") == false);
    CHECK(d::satisfies_range(d::version_number{0, 2, 9}, "^0.2.3") == true);
    CHECK_FALSE(d::satisfies_range(v20, "latest").has_value());
}
