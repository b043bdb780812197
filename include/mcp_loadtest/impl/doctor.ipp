// Definitions of doctor.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/doctor.hpp>

#include <mcp_loadtest/detail/os/command_lookup.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/text/html_escape.hpp>
#include <mcp_loadtest/detail/text/interpreter_text.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/detail/transport/command_output.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string_view to_string(check_status s) noexcept {
    switch (s) {
        case check_status::ok: return "ok";
        case check_status::warning: return "warning";
        case check_status::problem: return "problem";
        case check_status::skipped: return "skipped";
    }
    return "skipped";
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

namespace doctoring {

inline std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// The first line of a program's output, for a sentence.
inline std::string first_line(const std::string& s) {
    const std::string t = trimmed(s);
    return truncate_for_message(std::string_view(t).substr(0, t.find('\n')), 200);
}

// "`python3`" for sentences.
inline std::string quoted(const std::string& s) { return "`" + s + "`"; }

// The nearest package.json at or above `dir` (nullopt when none).
inline std::optional<std::filesystem::path> package_json_above(std::filesystem::path dir) {
    std::error_code ec;
    for (int depth = 0; depth < 64 && !dir.empty(); ++depth) {
        const auto candidate = dir / "package.json";
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
        if (!dir.has_parent_path() || dir.parent_path() == dir) break;
        dir = dir.parent_path();
    }
    return std::nullopt;
}

// node_modules/<package>/package.json at or above `dir`.
inline std::optional<std::filesystem::path> installed_package(std::filesystem::path dir, const std::string& package) {
    std::error_code ec;
    for (int depth = 0; depth < 64 && !dir.empty(); ++depth) {
        const auto candidate = dir / "node_modules" / std::filesystem::path(package) / "package.json";
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
        if (!dir.has_parent_path() || dir.parent_path() == dir) break;
        dir = dir.parent_path();
    }
    return std::nullopt;
}

struct engines_field {
    bool read = false;         // the file was JSON
    std::string name;          // the package's name
    std::optional<std::string> node;  // engines.node
};

inline engines_field read_engines(const std::filesystem::path& file) {
    engines_field out;
    std::ifstream in(file, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return out;
    out.read = true;
    if (auto n = j.find("name"); n != j.end() && n->is_string()) out.name = n->get<std::string>();
    if (auto e = j.find("engines"); e != j.end() && e->is_object())
        if (auto node = e->find("node"); node != e->end() && node->is_string()) out.node = node->get<std::string>();
    return out;
}

// One start of the server for the checklist: how its opening went.
struct opening_try {
    bool started = false;
    std::string spawn_failure;  // spawn_error's message
    bool answered = false;
    server_identity identity;
    std::chrono::nanoseconds took{0};  // spawn to the end of the opening
    std::string failure;               // connect_error's message
    outcome failed_as = outcome::ok;
    bool alive_after = false;          // still running when the opening ended
    exit_status exit;
    std::string stderr_tail;
    std::vector<protocol_violation> stdout_noise;  // lines that are not JSON-RPC, up to the end of the opening
    std::size_t stdout_noise_count = 0;
};

inline bool is_noise(protocol_violation::kind k) {
    return k == protocol_violation::kind::non_json_line || k == protocol_violation::kind::not_jsonrpc ||
           k == protocol_violation::kind::oversized_message || k == protocol_violation::kind::batch;
}

}  // namespace doctoring

struct doctor_job {
    any_server server;
    doctor_options o;
    client_options client;
    doctor_report r{};
    any_server attempt{};         // the description open_once() starts
    client_options attempt_client{};

    void add(const char* name, check_status status, std::string found, std::string fix = {}) {
        r.checks.push_back(doctor_check{name, status, std::move(found), std::move(fix)});
    }

    asio::awaitable<doctor_report> run() {
        const auto t0 = std::chrono::steady_clock::now();
        r.server = describe(server);
        r.transport = transport_name(server);
        if (std::holds_alternative<stdio_server>(server)) co_await stdio_checks();
        else co_await network_checks();
        r.took = std::chrono::steady_clock::now() - t0;
        co_return std::move(r);
    }

    // Starts `attempt` with `attempt_client` and opens the session as connect() would.
    asio::awaitable<doctoring::opening_try> open_once() {
        using namespace doctoring;
        opening_try t;
        const auto t0 = std::chrono::steady_clock::now();
        session s;
        try {
            // Named first: GCC 12 mis-relocates class-type temporaries inside co_await.
            auto starting = spawn(attempt, attempt_client);
            s = co_await std::move(starting);
        } catch (const spawn_error& e) {
            t.spawn_failure = e.what();
            co_return t;
        } catch (const connect_error& e) {
            t.started = true;
            t.failure = e.what();
            t.failed_as = e.result.outcome;
            co_return t;
        }
        t.started = true;
        try {
            t.identity = co_await s.handshake();
            t.answered = true;
        } catch (const connect_error& e) {
            t.failure = e.what();
            t.failed_as = e.result.outcome;
        }
        // A server that died of the era probe (server/discover) gets a fresh
        // process and the legacy handshake, as connect() gives it.
        if (!t.answered && s.pid() > 0 && !s.alive() && attempt_client.era == era_selection::automatic &&
            attempt_client.protocol_version.empty() && t.failure.find("exited when probed") != std::string::npos) {
            co_await s.close();
            attempt_client.era = era_selection::legacy;
            try {
                auto restarting = spawn(attempt, attempt_client);
                s = co_await std::move(restarting);
                t.identity = co_await s.initialize();
                t.answered = true;
                t.failure.clear();
            } catch (const spawn_error& e) {
                t.started = false;
                t.spawn_failure = e.what();
                co_return t;
            } catch (const connect_error& e) {
                t.failure = e.what();
                t.failed_as = e.result.outcome;
            }
        }
        t.took = std::chrono::steady_clock::now() - t0;
        t.alive_after = s.alive();
        t.exit = s.exit();
        t.stderr_tail = trimmed(s.stderr_tail(1024));
        for (const auto& v : s.protocol_violations())
            if (is_noise(v.what)) {
                ++t.stdout_noise_count;
                if (t.stdout_noise.size() < 3) t.stdout_noise.push_back(v);
            }
        co_await s.close();
        co_return t;
    }

    // ---- stdio ------------------------------------------------------------

    asio::awaitable<void> stdio_checks() {
        using namespace doctoring;
        const stdio_server& srv = std::get<stdio_server>(server);
        const interpreter_kind kind = interpreter_of(srv.command);
        const command_lookup where = look_up_command(srv);
        const bool runnable = check_command(srv, where);

        // The interpreter, and its version.
        std::optional<version_number> version;
        std::string version_text;
        if (!runnable) {
            add("interpreter", check_status::skipped, "Not checked: the command cannot be started.");
        } else if (kind == interpreter_kind::none) {
            add("interpreter", check_status::skipped,
                quoted(program_name(srv.command)) +
                    " is not an interpreter the doctor knows (python, node, uv, npx, deno, bun); nothing to ask.");
        } else {
            auto ask = std::make_shared<stdio_server>(srv);
            ask->command = where.found;
            ask->args = {"--version"};
            auto asking = run_to_end(ask, o.version_timeout);
            const command_output out = co_await std::move(asking);
            version_text = first_line(out.out.empty() ? out.err : out.out);
            version = find_version(version_text);
            const std::string asked = quoted(srv.command + " --version");
            if (!out.started) {
                add("interpreter", check_status::problem, asked + " could not start: " + out.error,
                    "Point stdio_server.command at a working " + std::string(to_string(kind)) + ".");
            } else if (out.timed_out) {
                add("interpreter", check_status::warning,
                    asked + " did not finish within " + std::to_string(o.version_timeout.count()) + " ms.",
                    "Run " + asked + " by hand: a wrapper that waits for input or a first-run download can stall a start.");
            } else if (!(out.status.exited && out.status.code == 0) || !version) {
                add("interpreter", check_status::problem,
                    asked + " " + out.status.describe() +
                        (version_text.empty() ? std::string(" and printed nothing") : ": \"" + version_text + "\"") + ".",
                    "Reinstall it, or point stdio_server.command at a working " + std::string(to_string(kind)) + ".");
            } else {
                add("interpreter", check_status::ok, version_text + " (" + where.found + ").");
            }
        }

        co_await node_version_check(srv, kind, where, version);

        if (!runnable) {
            for (const char* name : {"stays_up", "clean_stdout", "initialize", "python_buffering"})
                add(name, check_status::skipped, "Not checked: the command cannot be started.");
            co_return;
        }

        // The opening, with stderr captured for the findings.
        stdio_server first = srv;
        if (first.stderr_to == stderr_mode::inherit || first.stderr_to == stderr_mode::discard) {
            first.stderr_to = stderr_mode::capture;
            first.stderr_path.clear();
        }
        attempt = first;
        attempt_client = client;
        const opening_try t = co_await open_once();
        const std::string budget = std::to_string(srv.startup_timeout.count()) + " ms";

        if (!t.started) {
            add("stays_up", check_status::problem, "It could not be started: " + t.spawn_failure,
                "Fix what the message names, then run the doctor again.");
        } else if (!t.answered && !t.alive_after && t.exit.exited) {
            add("stays_up", check_status::problem,
                "It " + t.exit.describe() + " before answering initialize" +
                    (t.stderr_tail.empty() ? std::string(", writing nothing to stderr.")
                                           : ". Last stderr output: \"" + truncate_for_message(t.stderr_tail, 600) + "\"."),
                "Run " + quoted(srv.command_line()) +
                    " by hand in a terminal: it must keep running and wait for JSON-RPC on stdin (a missing "
                    "module, argument or environment variable usually shows there).");
        } else {
            add("stays_up", check_status::ok,
                t.answered ? "It kept running through the opening." : "It was still running when the opening ended.");
        }

        if (!t.started) {
            add("clean_stdout", check_status::skipped, "Not checked: it did not start.");
        } else if (t.stdout_noise_count > 0) {
            std::string samples;
            for (const auto& v : t.stdout_noise)
                samples += (samples.empty() ? "\"" : ", \"") + truncate_for_message(v.sample, 120) + "\"";
            add("clean_stdout", check_status::problem,
                "It wrote " + std::to_string(t.stdout_noise_count) +
                    " line(s) to stdout that are not JSON-RPC messages during the opening: " + samples +
                    ". Stdout is the protocol channel: clients may drop the line, log an error, or fail.",
                "Write logs and banners to stderr (Python: print(..., file=sys.stderr) or logging; Node: "
                "console.error), never to stdout.");
        } else {
            add("clean_stdout", check_status::ok, "Nothing but JSON-RPC on stdout during the opening.");
        }

        if (!t.started) {
            add("initialize", check_status::skipped, "Not checked: it did not start.");
        } else if (t.answered) {
            add("initialize", check_status::ok,
                "Answered in " + format_duration(t.took) + " (within " + budget + "): " +
                    (t.identity.name.empty() ? std::string("a server") : t.identity.name) +
                    (t.identity.version.empty() ? "" : " " + t.identity.version) + ", protocol " +
                    t.identity.protocol_version + " (" + std::string(mcp_loadtest::to_string(t.identity.era)) + " era).");
        } else if (t.failed_as == outcome::hang) {
            add("initialize", check_status::problem,
                "No answer within the startup budget (stdio_server.startup_timeout, " + budget +
                    ") while the process kept running.",
                "Make it read newline-delimited JSON-RPC on stdin and write each reply to stdout at once (flushed); "
                "if it only starts slowly, raise stdio_server.startup_timeout.");
        } else if (!t.alive_after && t.exit.exited) {
            add("initialize", check_status::skipped, "Not answered: it exited first (see stays_up).");
        } else {
            add("initialize", check_status::problem, "The opening failed: " + truncate_for_message(t.failure, 600),
                "Fix what the message names (protocol versions: client_options.protocol_version).");
        }

        co_await python_buffering_check(srv, kind, t);
    }

    bool check_command(const stdio_server& srv, const command_lookup& where) {
        using namespace doctoring;
        if (srv.command.empty()) {
            add("command", check_status::problem, "stdio_server.command is empty.",
                "Set it, e.g. stdio_server{\"python3\", {\"server.py\"}}.");
            return false;
        }
        if (!srv.working_dir.empty()) {
            std::error_code ec;
            if (!std::filesystem::is_directory(srv.working_dir, ec)) {
                add("command", check_status::problem,
                    "The working directory '" + srv.working_dir.string() + "' does not exist or is not a directory.",
                    "Fix stdio_server.working_dir.");
                return false;
            }
        }
        if (!where.found.empty()) {
            add("command", check_status::ok,
                quoted(srv.command) + (where.has_directory ? std::string(" is an executable file.")
                                                           : " is " + where.found + ", found on PATH."));
            return true;
        }
        if (!where.problem.empty()) {
            add("command", check_status::problem, where.problem + ".",
                "Make it executable (chmod +x), or run it through its interpreter (e.g. python3 script.py).");
            return false;
        }
        if (where.has_directory) {
            add("command", check_status::problem,
                quoted(srv.command) + " does not exist" +
                    (srv.working_dir.empty() ? std::string() : " (relative to " + srv.working_dir.string() + ")") +
                    (where.extensions.empty() ? std::string() : ", nor with any extension of PATHEXT (" + where.extensions + ")") + ".",
                "Fix the path, or give an absolute one.");
            return false;
        }
        add("command", check_status::problem,
            quoted(srv.command) + " is not on PATH. PATH searched: " +
                (where.searched.empty() ? std::string("(empty)") : where.searched) +
                (where.extensions.empty() ? std::string() : "; with the extensions of PATHEXT: " + where.extensions) + ".",
            "Install it, fix the spelling, give its absolute path, or set PATH in stdio_server.env.");
        return false;
    }

    // References only (GCC 12 and by-value class-type coroutine parameters).
    asio::awaitable<void> node_version_check(const stdio_server& srv, interpreter_kind kind, const command_lookup& where,
                                             const std::optional<version_number>& interpreter_version) {
        using namespace doctoring;
        std::optional<version_number> version = interpreter_version;
        if (kind != interpreter_kind::node && kind != interpreter_kind::npx) {
            add("node_version", check_status::skipped, "Not a Node server (node or npx).");
            co_return;
        }
        if (where.found.empty()) {
            add("node_version", check_status::skipped, "Not checked: the command cannot be started.");
            co_return;
        }
        // The package's package.json: the script's nearest, or the npx package's installed copy.
        std::optional<std::filesystem::path> manifest;
        std::string subject;
        std::error_code ec;
        const std::filesystem::path base = srv.working_dir.empty() ? std::filesystem::current_path(ec) : srv.working_dir;
        if (kind == interpreter_kind::node) {
            const std::string script = node_script(srv.args);
            if (script.empty()) {
                add("node_version", check_status::skipped, "It runs no script file, so there is no package.json to read.");
                co_return;
            }
            std::filesystem::path p(script);
            if (p.is_relative()) p = base / p;
            subject = quoted(script);
            manifest = package_json_above(p.parent_path());
        } else {
            const std::string package = npx_package(srv.args);
            if (package.empty()) {
                add("node_version", check_status::warning, "Could not tell which package npx runs.",
                    "Name the package as npx's first argument (npx -y <package>).");
                co_return;
            }
            subject = quoted(package);
            manifest = installed_package(base, package);
            if (!manifest) {
                add("node_version", check_status::warning,
                    "Could not tell: " + subject + " is not installed under node_modules at or above " + base.string() +
                        " (npx fetches it at start), so its engines.node is unknown here.",
                    "Run `npm view " + package + " engines` and compare with `node --version`.");
                co_return;
            }
            // npx runs the package with the node on the same PATH.
            auto ask = std::make_shared<stdio_server>(srv);
            ask->command = "node";
            ask->args = {"--version"};
            const command_lookup node = look_up_command(*ask);
            if (node.found.empty()) {
                add("node_version", check_status::problem, "npx is on PATH but node is not.",
                    "Install Node.js (it brings node and npx), or fix PATH.");
                co_return;
            }
            ask->command = node.found;
            auto asking = run_to_end(ask, o.version_timeout);
            const command_output out = co_await std::move(asking);
            version = find_version(out.out);
        }
        if (!manifest) {
            add("node_version", check_status::warning,
                "Could not tell: no package.json at or above " + subject + ".",
                "Add one with \"engines\": {\"node\": \">=18\"} (or what the code needs), so tools can check it.");
            co_return;
        }
        const engines_field engines = read_engines(*manifest);
        if (!engines.read) {
            add("node_version", check_status::warning, "Could not tell: " + manifest->string() + " is not valid JSON.",
                "Fix the file.");
            co_return;
        }
        const std::string who = engines.name.empty() ? manifest->string() : quoted(engines.name) + " (" + manifest->string() + ")";
        if (!engines.node) {
            add("node_version", check_status::ok, who + " declares no engines.node: any Node version is accepted.");
            co_return;
        }
        if (!version) {
            add("node_version", check_status::warning,
                who + " needs node " + *engines.node + ", and the doctor could not read node's version.",
                "Run `node --version` by hand.");
            co_return;
        }
        const auto fits = satisfies_range(*version, *engines.node);
        if (!fits) {
            add("node_version", check_status::warning,
                who + " needs node \"" + *engines.node + "\", a range the doctor cannot read; node is " +
                    mcp_loadtest::detail::to_string(*version) + ".",
                "Compare by hand: `node --version`.");
        } else if (*fits) {
            add("node_version", check_status::ok,
                "node " + mcp_loadtest::detail::to_string(*version) + " satisfies engines.node \"" + *engines.node +
                    "\" of " + who + ".");
        } else {
            add("node_version", check_status::problem,
                "node " + mcp_loadtest::detail::to_string(*version) + " is outside engines.node \"" + *engines.node +
                    "\" of " + who + ": the package may fail to start, or fail later on a missing API.",
                "Install a Node that satisfies \"" + *engines.node +
                    "\" (e.g. nvm install <version>) and put it first on PATH, or in stdio_server.env's PATH.");
        }
    }

    asio::awaitable<void> python_buffering_check(const stdio_server& srv, interpreter_kind kind,
                                                 const doctoring::opening_try& t) {
        using namespace doctoring;
        if (kind != interpreter_kind::python && kind != interpreter_kind::uv) {
            add("python_buffering", check_status::skipped, "Not a Python server (python or uv).");
            co_return;
        }
        const bool flag = kind == interpreter_kind::python && python_unbuffered_flag(srv.args);
        const auto env = server_environment_value(srv, "PYTHONUNBUFFERED");
        const bool env_set = env && !env->empty();
        if (flag || env_set) {
            add("python_buffering", check_status::ok,
                flag ? std::string("Run with -u: its stdout is unbuffered.")
                     : "PYTHONUNBUFFERED=" + *env + " is set: its stdout is unbuffered.");
            co_return;
        }
        if (t.answered) {
            add("python_buffering", check_status::ok,
                "Neither -u nor PYTHONUNBUFFERED, but its replies arrived: it flushes them itself (MCP SDKs do).");
            co_return;
        }
        if (!t.started || !t.alive_after || t.failed_as != outcome::hang) {
            add("python_buffering", check_status::skipped,
                "Not the question: it did not run long enough to leave a reply unanswered.");
            co_return;
        }
        // The classic case: print() without flush to a pipe is block-buffered
        // (8 KiB), so a small reply waits until the buffer fills or the
        // process exits. Proof: the same server with PYTHONUNBUFFERED=1 answers.
        if (!o.retry_unbuffered) {
            add("python_buffering", check_status::warning,
                "Possibly: neither -u nor PYTHONUNBUFFERED is set, and initialize went unanswered while it ran; a "
                "reply print()ed without flush waits in a pipe's 8 KiB buffer. (Not confirmed: retry_unbuffered is off.)",
                "Set PYTHONUNBUFFERED=1 in stdio_server.env (or run python -u), or flush after each reply.");
            co_return;
        }
        stdio_server again = std::get<stdio_server>(attempt);
        again.env["PYTHONUNBUFFERED"] = "1";
        attempt = again;
        attempt_client = client;
        const opening_try retry = co_await open_once();
        if (retry.answered) {
            add("python_buffering", check_status::problem,
                "Confirmed: its stdout is block-buffered. Without -u or PYTHONUNBUFFERED, its opening went "
                "unanswered for " + std::to_string(srv.startup_timeout.count()) +
                    " ms; started again with PYTHONUNBUFFERED=1 it answered initialize in " + format_duration(retry.took) +
                    ". Its replies sat in the 8 KiB stdout buffer of a pipe.",
                "Set PYTHONUNBUFFERED=1 in stdio_server.env (or run python -u), or flush after each reply "
                "(print(..., flush=True), sys.stdout.flush()).");
        } else {
            add("python_buffering", check_status::ok,
                "Not the cause: started again with PYTHONUNBUFFERED=1 it did not answer initialize either.");
        }
    }

    // ---- network ------------------------------------------------------------

    asio::awaitable<void> network_checks() {
        using namespace doctoring;
        attempt = server;
        attempt_client = client;
        const opening_try t = co_await open_once();
        if (t.answered) {
            add("initialize", check_status::ok,
                "Answered in " + format_duration(t.took) + ": " +
                    (t.identity.name.empty() ? std::string("a server") : t.identity.name) +
                    (t.identity.version.empty() ? "" : " " + t.identity.version) + ", protocol " +
                    t.identity.protocol_version + " (" + std::string(mcp_loadtest::to_string(t.identity.era)) + " era).");
        } else {
            const std::string why = t.failure.empty() ? t.spawn_failure : t.failure;
            add("initialize", check_status::problem, "The opening failed: " + truncate_for_message(why, 800),
                t.failed_as == outcome::hang
                    ? "Check that the URL is the server's MCP endpoint, or raise network_limits::startup_timeout."
                    : "Check that the server is running and the URL, host and port are right.");
        }
    }
};

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL bool doctor_report::passed() const noexcept {
    for (const auto& c : checks)
        if (c.status == check_status::problem) return false;
    return true;
}

MCP_LOADTEST_DECL const doctor_check* doctor_report::find(std::string_view name) const noexcept {
    for (const auto& c : checks)
        if (c.name == name) return &c;
    return nullptr;
}

MCP_LOADTEST_DECL std::string doctor_report::verdict_sentence() const {
    std::size_t problems = 0, warnings = 0, ok = 0;
    std::string detail;
    for (const auto& c : checks) {
        if (c.status == check_status::problem) {
            ++problems;
            detail += " [" + c.name + "] " + c.found + (c.fix.empty() ? "" : " Fix: " + c.fix);
        }
        if (c.status == check_status::warning) ++warnings;
        if (c.status == check_status::ok) ++ok;
    }
    if (problems == 0)
        return "SETUP OK: " + server + " (" + transport + "): " + std::to_string(ok) + " check(s) ok, " +
               std::to_string(warnings) + " warning(s).";
    return "SETUP PROBLEMS: " + server + " (" + transport + "): " + std::to_string(problems) + " problem(s)." + detail;
}

namespace detail {
inline const char* doctor_mark(check_status s) {
    switch (s) {
        case check_status::ok: return "\xE2\x9C\x85";                  // ✅
        case check_status::warning: return "\xE2\x9A\xA0\xEF\xB8\x8F";  // ⚠️
        case check_status::problem: return "\xE2\x9D\x8C";             // ❌
        case check_status::skipped: return "\xE2\x9E\x96";             // ➖
    }
    return "";
}

}  // namespace detail

MCP_LOADTEST_DECL std::string doctor_report::to_markdown() const {
    std::string s = "### Setup doctor: " + detail::markdown_cell(server, 300) + " (" + transport + ")\n\n";
    s += "| | check | found | fix |\n| --- | --- | --- | --- |\n";
    for (const auto& c : checks)
        s += std::string("| ") + detail::doctor_mark(c.status) + " | " + c.name + " | " + detail::markdown_cell(c.found, 2000) +
             " | " + detail::markdown_cell(c.fix, 2000) + " |\n";
    std::size_t problems = 0;
    for (const auto& c : checks) problems += c.status == check_status::problem;
    s += "\n" + (problems ? "**" + std::to_string(problems) + " problem(s)**" : std::string("No problems")) + " (" +
         detail::format_duration(took) + ").\n";
    return s;
}

MCP_LOADTEST_DECL std::string doctor_report::to_terminal() const {
    std::string s = "setup doctor: " + server + " (" + transport + ")\n";
    for (const auto& c : checks) {
        std::string name = c.name;
        if (name.size() < 17) name.resize(17, ' ');
        s += std::string(detail::doctor_mark(c.status)) + " " + name + " " + c.found + "\n";
        if (!c.fix.empty()) s += "   " + std::string(17, ' ') + " fix: " + c.fix + "\n";
    }
    std::size_t problems = 0;
    for (const auto& c : checks) problems += c.status == check_status::problem;
    s += (problems ? std::to_string(problems) + " problem(s)" : std::string("no problems")) + ", " +
         detail::format_duration(took) + ".\n";
    return s;
}

MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server, doctor_options options, client_options client) {
    return detail::start_owned(detail::doctor_job{std::move(server), options, std::move(client)});
}

MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server, doctor_options options) {
    return doctor(std::move(server), options, client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server) {
    return doctor(std::move(server), doctor_options{}, client_options{});
}

MCP_LOADTEST_DECL void to_json(json& j, const doctor_check& c) {
    j = json{{"name", c.name}, {"status", to_string(c.status)}, {"found", c.found}, {"fix", c.fix}};
}

MCP_LOADTEST_DECL void from_json(const json& j, doctor_check& c) {
    c.name = j.at("name").get<std::string>();
    const auto status = j.at("status").get<std::string>();
    bool known = false;
    for (auto s : {check_status::ok, check_status::warning, check_status::problem, check_status::skipped})
        if (to_string(s) == status) {
            c.status = s;
            known = true;
        }
    if (!known) throw std::invalid_argument("doctor_check: unknown status \"" + status + "\"");
    c.found = j.at("found").get<std::string>();
    c.fix = j.at("fix").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const doctor_report& r) {
    j = json{{"server", r.server},   {"transport", r.transport},
             {"passed", r.passed()}, {"verdict_sentence", r.verdict_sentence()},
             {"checks", r.checks},   {"took_ns", r.took.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, doctor_report& r) {
    r.server = j.at("server").get<std::string>();
    r.transport = j.at("transport").get<std::string>();
    r.checks = j.at("checks").get<std::vector<doctor_check>>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

}  // namespace mcp_loadtest
