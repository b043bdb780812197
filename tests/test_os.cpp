// The operating-system layer (detail/os/) on its own, on every platform it has a
// backend for: the same checks run on Linux natively and on Windows under Wine.
// Nothing here starts a server: it reads this process and children of its own.
#include <doctest/doctest.h>
#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>
#include <mcp_loadtest/detail/os/windows_command_line.hpp>
#if defined(_WIN32)
#include <mcp_loadtest/detail/os/windows/spawn.hpp>

#include <shellapi.h>  // CommandLineToArgvW: the rules quote_windows_argument() writes for
#else
#include <mcp_loadtest/detail/os/child_process.hpp>
#include <mcp_loadtest/detail/os/pipe_stream.hpp>

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <csignal>
#include <memory>
#include <optional>
#endif

#include <algorithm>
#include <cctype>
#include <atomic>
#include <set>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace os = mcp_loadtest::detail;
using namespace std::chrono_literals;
using std::chrono::steady_clock;

namespace {

// Burns CPU until this process has used `cpu` more of it (by its own clock), or
// 20 s of wall time passed on a machine too busy to give it that much.
std::chrono::nanoseconds burn(std::chrono::milliseconds cpu) {
    volatile std::uint64_t x = 1;
    const auto start = os::this_process_cpu_time();
    for (const auto give_up = steady_clock::now() + 20s;
         os::this_process_cpu_time() - start < cpu && steady_clock::now() < give_up;)
        for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return os::this_process_cpu_time() - start;
}

// A command that runs about three seconds and exits, through the platform's shell.
#if defined(_WIN32)
constexpr const char* three_seconds = "ping -n 4 127.0.0.1 > NUL";
#else
constexpr const char* three_seconds = "sleep 3";
#endif

}  // namespace

TEST_CASE("this process's readings: memory, threads, CPU time, start time, command line") {
    const auto self = os::this_process_id();
    REQUIRE(self > 0);
    const auto before = os::read_proc(self);
    REQUIRE(before);
    CHECK(before->rss_bytes > 1024 * 1024);  // a C++ test program holds more than 1 MB
    CHECK(before->threads >= 1);
    CHECK(before->start_ticks > 0);
    MESSAGE("rss " << before->rss_bytes / 1024 << " KB, " << before->threads << " thread(s), " << before->open_fds
                   << " open descriptors or handles");

    // A second thread shows in the count while it lives.
    std::atomic<bool> stop{false};
    std::thread extra([&] {
        while (!stop) std::this_thread::sleep_for(1ms);
    });
    const auto with_extra = os::read_proc(self);
    stop = true;
    extra.join();
    REQUIRE(with_extra);
    CHECK(with_extra->threads >= 2);

    // The process's CPU time, read from outside, grows by what it used (by its own clock;
    // /proc counts in 10 ms ticks, so allow two of them).
    const auto used = burn(200ms);
    const auto after = os::read_proc(self);
    REQUIRE(after);
    REQUIRE(used >= 200ms);
    CHECK(after->cpu_time - before->cpu_time >= 180ms);
    CHECK(after->start_ticks == before->start_ticks);  // the same process

    const std::string command = os::command_line(self);
    MESSAGE("command line: " << command);
    CHECK(command.find("test_os") != std::string::npos);
}

TEST_CASE("this program's executable is named by its absolute path") {
    const auto program = os::this_process_executable();
    INFO(program.string());
    CHECK(program.is_absolute());
    CHECK(program.stem() == "test_os");
    CHECK(std::filesystem::exists(program));
}

TEST_CASE("a process that does not exist reads as gone") {
    CHECK_FALSE(os::read_proc(0));
    CHECK_FALSE(os::read_proc(-1));
    CHECK_FALSE(os::read_proc_identity(0));
    CHECK(os::children_of(0).empty());
    CHECK(os::command_line(0).empty());
    // An id far above what either system hands out (Linux: pid_max <= 2^22; Windows: multiples of 4 well below).
    CHECK_FALSE(os::read_proc(0x3ffffff1));
    CHECK(os::command_line(0x3ffffff1).empty());
}

TEST_CASE("a child of this process is found by children_of(), the snapshot and the tree, and read") {
    const auto self = os::this_process_id();
    std::thread shell([] { (void)std::system(three_seconds); });  // the shell is our child while it runs
    std::vector<mcp_loadtest::pid_t> children;
    for (const auto deadline = steady_clock::now() + 2s; children.empty() && steady_clock::now() < deadline;) {
        children = os::children_of(self);
        if (children.empty()) std::this_thread::sleep_for(10ms);
    }
    REQUIRE_MESSAGE(!children.empty(), "no child found within 2 s of std::system(\"", three_seconds, "\")");
    const auto child = children.front();
    const auto reading = os::read_proc(child);
    const auto identity = os::read_proc_identity(child);
    const auto snapshot = os::snapshot_processes();
    const auto command = os::command_line(child);
    shell.join();

    REQUIRE(reading);
    CHECK(reading->threads >= 1);
    REQUIRE(identity);
    CHECK(identity->parent == self);
    CHECK(identity->start_ticks >= os::read_proc(self)->start_ticks);
    MESSAGE("child " << child << ": " << command);
    CHECK_FALSE(command.empty());
    const auto in_snapshot = std::find_if(snapshot.begin(), snapshot.end(), [&](const auto& p) { return p.pid == child; });
    REQUIRE(in_snapshot != snapshot.end());
    CHECK(in_snapshot->parent == self);
    // The child's own tree starts with it.
    const auto tree = os::process_tree_members(child, snapshot);
    REQUIRE_FALSE(tree.empty());
    CHECK(tree.front().pid == child);

    // Gone once it exited.
    for (const auto deadline = steady_clock::now() + 5s; os::read_proc(child) && steady_clock::now() < deadline;)
        std::this_thread::sleep_for(20ms);
    CHECK_FALSE(os::read_proc(child));
}

// ---- Windows command lines: pure text, checked on every platform ---------------------

TEST_CASE("Windows command lines: arguments quoted by CommandLineToArgvW's rules") {
    using os::quote_windows_argument;
    CHECK(quote_windows_argument("abc") == "abc");
    CHECK(quote_windows_argument("a b") == "\"a b\"");
    CHECK(quote_windows_argument("") == "\"\"");
    CHECK(quote_windows_argument("a\"b") == "\"a\\\"b\"");
    CHECK(quote_windows_argument("a\\b") == "a\\b");                         // backslashes alone stay
    CHECK(quote_windows_argument("a\\ b\\") == "\"a\\ b\\\\\"");             // doubled before the closing quote
    CHECK(quote_windows_argument("a\\\\\"b") == "\"a\\\\\\\\\\\"b\"");       // and before an inner quote
    CHECK(quote_windows_argument(R"(C:\Program Files\)") == R"("C:\Program Files\\")");
    CHECK(os::windows_command_line({"node", "C:\\srv\\index.js", "--name", "my server"}) ==
          R"(node C:\srv\index.js --name "my server")");
}

TEST_CASE("Windows command lines: a .cmd shim runs through cmd.exe, and arguments cmd.exe would read are refused") {
    CHECK(os::is_batch_file("C:\\bin\\npx.cmd"));
    CHECK(os::is_batch_file("RUN.BAT"));
    CHECK_FALSE(os::is_batch_file("node.exe"));
    const auto line = os::batch_command_line(R"(C:\Windows\System32\cmd.exe)", R"(C:\Program Files\nodejs\npx.cmd)",
                                             {"-y", "@modelcontextprotocol/server-everything", "a b", "x&y"});
    REQUIRE(line);
    CHECK(*line == R"(C:\Windows\System32\cmd.exe /d /s /c ""C:\Program Files\nodejs\npx.cmd" -y )"
                   R"(@modelcontextprotocol/server-everything "a b" "x&y"")");
    CHECK_FALSE(os::batch_command_line("cmd.exe", "x.cmd", {"%PATH%"}));
    CHECK_FALSE(os::batch_command_line("cmd.exe", "x.cmd", {"wow!"}));
    CHECK_FALSE(os::batch_command_line("cmd.exe", "x.cmd", {"say \"hi\""}));
    CHECK_FALSE(os::batch_command_line("cmd.exe", "x.cmd", {"two\nlines"}));
}

TEST_CASE("Windows command lines: a command is found as cmd.exe finds it, through PATH and PATHEXT") {
    const std::set<std::string> files{R"(C:\bin\npx.cmd)", R"(C:\node\node.exe)", R"(D:\tools\server.EXE)",
                                      R"(C:\bin\tool.py)"};
    // Windows' file names are case-insensitive; PATHEXT's extensions are appended as written there.
    const auto lower = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    const auto is_file = [&](const std::string& p) {
        return std::any_of(files.begin(), files.end(), [&](const std::string& f) { return lower(f) == lower(p); });
    };
    const std::string path = R"(C:\node;;C:\bin\)", pathext = ".COM;.EXE;.BAT;.CMD";
    CHECK(os::resolve_windows_command("npx", path, pathext, is_file) == std::optional<std::string>(R"(C:\bin\npx.CMD)"));
    CHECK(os::resolve_windows_command("node", path, pathext, is_file) == std::optional<std::string>(R"(C:\node\node.EXE)"));
    CHECK(os::resolve_windows_command("node.exe", path, pathext, is_file) ==
          std::optional<std::string>(R"(C:\node\node.exe)"));
    CHECK(os::resolve_windows_command(R"(D:\tools\server)", "", pathext, is_file) ==
          std::optional<std::string>(R"(D:\tools\server.EXE)"));
    CHECK_FALSE(os::resolve_windows_command("tool.py", path, pathext, is_file));  // not a PATHEXT extension
    CHECK_FALSE(os::resolve_windows_command("missing", path, pathext, is_file));
    CHECK_FALSE(os::resolve_windows_command("", path, pathext, is_file));
}

#if defined(_WIN32)
// ---- Windows: starting a process tree, and ending it ---------------------------------

namespace {

// What `h` (an overlapped pipe end) gives until EOF, until `enough` says so, or until `bound` passed.
template <class Enough>
std::string read_until(HANDLE h, std::chrono::milliseconds bound, Enough enough) {
    std::string out;
    os::unique_handle event(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
    const auto deadline = steady_clock::now() + bound;
    while (!enough(out)) {
        char buf[4096];
        OVERLAPPED o{};
        o.hEvent = event.get();
        DWORD n = 0;
        if (!::ReadFile(h, buf, sizeof buf, nullptr, &o) && ::GetLastError() != ERROR_IO_PENDING) break;  // EOF
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
        if (::WaitForSingleObject(event.get(), static_cast<DWORD>(std::max<long long>(left.count(), 0))) != WAIT_OBJECT_0) {
            ::CancelIo(h);
            ::GetOverlappedResult(h, &o, &n, TRUE);
            break;
        }
        if (!::GetOverlappedResult(h, &o, &n, FALSE) || n == 0) break;
        out.append(buf, n);
    }
    return out;
}

std::string read_all(HANDLE h, std::chrono::milliseconds bound) {
    return read_until(h, bound, [](const std::string&) { return false; });
}

void write_all(HANDLE h, const std::string& text) {
    os::unique_handle event(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
    OVERLAPPED o{};
    o.hEvent = event.get();
    DWORD n = 0;
    if (!::WriteFile(h, text.data(), static_cast<DWORD>(text.size()), nullptr, &o) && ::GetLastError() != ERROR_IO_PENDING)
        return;
    ::GetOverlappedResult(h, &o, &n, TRUE);
}

bool exited_within(const os::windows_child& child, std::chrono::milliseconds bound) {
    return ::WaitForSingleObject(child.process.get(), static_cast<DWORD>(bound.count())) == WAIT_OBJECT_0;
}

// The C++ fixture server (fixtures/native), built beside this test: <build>/fixtures/native/.
std::filesystem::path native_fixture_exe() {
    std::wstring self(32768, L'\0');
    self.resize(::GetModuleFileNameW(nullptr, self.data(), static_cast<DWORD>(self.size())));
    return std::filesystem::path(self).parent_path().parent_path() / "fixtures" / "native" / "mcp_fixture_server.exe";
}

// The first `count` complete lines `h` gives within `bound` (fewer if it ends or time runs out).
std::vector<std::string> read_lines(HANDLE h, std::size_t count, std::chrono::milliseconds bound) {
    const std::string text = read_until(h, bound, [&](const std::string& so_far) {
        return static_cast<std::size_t>(std::count(so_far.begin(), so_far.end(), '\n')) >= count;
    });
    std::vector<std::string> lines;
    for (std::size_t from = 0, nl; lines.size() < count && (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
        lines.push_back(text.substr(from, nl + 1 - from));
    return lines;
}

std::filesystem::path fresh_directory(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("mlt-" + name + "-" + std::to_string(os::this_process_id()) + "-" + std::to_string(std::rand()));
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("Windows: CommandLineToArgvW reads back every argument quote_windows_argument() wrote") {
    const std::vector<std::string> args{"plain", "two words", "", "quote\"inside", "trailing\\", "C:\\Program Files\\",
                                        "back\\\\\"slashes", "tab\there", "caf\xc3\xa9 \xe6\x97\xa5"};
    std::vector<std::string> argv{"prog.exe"};
    argv.insert(argv.end(), args.begin(), args.end());
    int n = 0;
    wchar_t** parsed = ::CommandLineToArgvW(os::utf16(os::windows_command_line(argv)).c_str(), &n);
    REQUIRE(parsed != nullptr);
    REQUIRE(n == static_cast<int>(argv.size()));
    for (int i = 1; i < n; ++i) CHECK(os::utf8(parsed[i]) == argv[static_cast<std::size_t>(i)]);
    ::LocalFree(parsed);
}

TEST_CASE("Windows: a child's stdout and exit code come through its overlapped pipes") {
    mcp_loadtest::stdio_server s{"cmd.exe", {"/c", "echo hello"}};
    auto child = os::spawn_windows_child(s, os::windows_stderr::inherit);
    CHECK(child.pid > 0);
    CHECK(read_all(child.stdout_read.get(), 10s) == "hello\r\n");
    REQUIRE(exited_within(child, 10s));
    const auto status = os::windows_exit_status(child);
    CHECK(status.exited);
    CHECK(status.code == 0);
}

TEST_CASE("Windows: what is written to a child's stdin reaches it") {
    mcp_loadtest::stdio_server s{"cmd.exe", {"/q"}};
    auto child = os::spawn_windows_child(s, os::windows_stderr::discard);
    write_all(child.stdin_write.get(), "echo from-stdin\r\n");
    child.stdin_write.reset();  // EOF, as the library's first step of ending a server
    const std::string out = read_all(child.stdout_read.get(), 10s);
    MESSAGE(out);
    CHECK(out.find("from-stdin") != std::string::npos);
    REQUIRE(exited_within(child, 10s));  // at EOF on its stdin
    CHECK(os::windows_exit_status(child).exited);
}

TEST_CASE("Windows: a .cmd shim found on PATH runs through cmd.exe with its arguments") {
    const auto dir = fresh_directory("shim");
    {
        std::FILE* f = std::fopen((dir / "mlt-shim.cmd").string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs("@echo off\r\necho shim [%1] [%~2] [%3]\r\n", f);
        std::fclose(f);
    }
    mcp_loadtest::stdio_server s{"mlt-shim", {"one", "two words", "x&y"}};
    s.env["PATH"] = dir.string();
    auto child = os::spawn_windows_child(s, os::windows_stderr::inherit);
    // %~2 is the argument unquoted; %3 keeps the quotes that kept cmd.exe from reading its &.
    CHECK(read_all(child.stdout_read.get(), 10s) == "shim [one] [two words] [\"x&y\"]\r\n");
    REQUIRE(exited_within(child, 10s));
    CHECK(os::windows_exit_status(child).code == 0);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

TEST_CASE("Windows: ending the job ends the child and everything it started") {
    mcp_loadtest::stdio_server s{"cmd.exe", {"/c", "ping -n 30 127.0.0.1 > NUL"}};
    auto child = os::spawn_windows_child(s, os::windows_stderr::discard);
    std::vector<mcp_loadtest::pid_t> members;
    for (const auto deadline = steady_clock::now() + 5s; members.size() < 2 && steady_clock::now() < deadline;) {
        members = os::windows_job_processes(child);
        if (members.size() < 2) std::this_thread::sleep_for(20ms);
    }
    MESSAGE(members.size() << " process(es) in the job");
    REQUIRE(members.size() >= 2);  // cmd.exe and the ping it started
    CHECK(std::find(members.begin(), members.end(), child.pid) != members.end());
    os::terminate_windows_job(child, 9);
    REQUIRE(exited_within(child, 10s));
    CHECK(os::windows_exit_status(child).code == 9);
    for (const auto deadline = steady_clock::now() + 5s;
         !os::windows_job_processes(child).empty() && steady_clock::now() < deadline;)
        std::this_thread::sleep_for(20ms);
    CHECK(os::windows_job_processes(child).empty());
    for (auto pid : members) CHECK_FALSE(os::read_proc(pid));
}

TEST_CASE("Windows: a command that is not found, and a bad working directory, are clear errors") {
    mcp_loadtest::stdio_server missing{"mlt-no-such-program", {}};
    CHECK_THROWS_WITH_AS(os::spawn_windows_child(missing, os::windows_stderr::inherit),
                         doctest::Contains("'mlt-no-such-program' was not found on PATH"), mcp_loadtest::spawn_error);
    mcp_loadtest::stdio_server elsewhere{"cmd.exe", {"/c", "echo"}};
    elsewhere.working_dir = "C:\\mlt-no-such-directory";
    CHECK_THROWS_WITH_AS(os::spawn_windows_child(elsewhere, os::windows_stderr::inherit),
                         doctest::Contains("does not exist or is not a directory"), mcp_loadtest::spawn_error);
}
TEST_CASE("Windows: an MCP server started through a .cmd shim on PATH answers over its pipes, and its whole tree ends with its job") {
    const auto server_exe = native_fixture_exe();
    REQUIRE_MESSAGE(std::filesystem::exists(server_exe), "the C++ fixture server is built beside this test: ", server_exe.string());
    const auto dir = fresh_directory("npx-like");
    {
        // What npm writes for a package's command: a .cmd that runs the real program with every argument.
        std::FILE* f = std::fopen((dir / "mlt-fixture.cmd").string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs(("@\"" + server_exe.string() + "\" %*\r\n").c_str(), f);
        std::fclose(f);
    }
    mcp_loadtest::stdio_server s{"mlt-fixture", {"--crlf", "--spawn-child"}};
    s.env["PATH"] = dir.string();
    auto child = os::spawn_windows_child(s, os::windows_stderr::discard);
    write_all(child.stdin_write.get(),
              R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
              R"("clientInfo":{"name":"test_os","version":"1"}}})" "\n"
              R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
              R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"via a shim"}}})" "\n");
    const auto lines = read_lines(child.stdout_read.get(), 2, 20s);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find(R"("protocolVersion":"2025-06-18")") != std::string::npos);
    CHECK(lines[1].find(R"("text":"via a shim")") != std::string::npos);
    CHECK(lines[1].ends_with("}\r\n"));  // --crlf: what Python's text-mode stdout writes on Windows

    // The shell, the server and the child it started are all in the job.
    std::vector<mcp_loadtest::pid_t> members;
    for (const auto deadline = steady_clock::now() + 5s; members.size() < 3 && steady_clock::now() < deadline;) {
        members = os::windows_job_processes(child);
        if (members.size() < 3) std::this_thread::sleep_for(20ms);
    }
    MESSAGE(members.size() << " process(es) in the job");
    CHECK(members.size() >= 3);
    // EOF on stdin ends the server (and the shell running it); its child sleeps on, in the job.
    child.stdin_write.reset();
    CHECK(exited_within(child, 10s));
    CHECK_FALSE(os::windows_job_processes(child).empty());
    os::terminate_windows_job(child, 1);
    for (const auto deadline = steady_clock::now() + 5s;
         !os::windows_job_processes(child).empty() && steady_clock::now() < deadline;)
        std::this_thread::sleep_for(20ms);
    CHECK(os::windows_job_processes(child).empty());
    for (auto pid : members) CHECK_FALSE(os::read_proc(pid));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}
#endif

#if !defined(_WIN32)
// The exit watcher of this build's backend: a pidfd (the Linux backend) or
// waitid() polling (the generic POSIX backend, MCP_LOADTEST_OS_BACKEND=posix).
namespace {
os::spawned_child spawn_sh(const char* script) {
    return os::spawn_child(mcp_loadtest::stdio_server{"sh", {"-c", script}}, os::child_stderr::discard);
}
}  // namespace

TEST_CASE("Unix: exit watchers see their own child's exit, without reaping it or taking another child's status") {
    MESSAGE("backend: " << std::string(MCP_LOADTEST_OS_PIDFD ? "native (pidfd)" : "posix (waitid polling)"));
    asio::io_context io;
    const auto start = steady_clock::now();
    auto quick = spawn_sh("exit 3");
    auto slow = spawn_sh("sleep 0.3; exit 4");
    os::exit_watcher quick_watch(io.get_executor()), slow_watch(io.get_executor());
    quick_watch.watch(quick.pid, std::move(quick.exit_handle));
    slow_watch.watch(slow.pid, std::move(slow.exit_handle));
    REQUIRE(quick_watch.is_open());
    REQUIRE(slow_watch.is_open());
    std::optional<asio::error_code> quick_ec, slow_ec;
    steady_clock::time_point quick_at{}, slow_at{};
    quick_watch.async_wait([&](const asio::error_code& ec) { quick_ec = ec, quick_at = steady_clock::now(); });
    slow_watch.async_wait([&](const asio::error_code& ec) { slow_ec = ec, slow_at = steady_clock::now(); });
    io.run_for(10s);
    REQUIRE(quick_ec);
    REQUIRE(slow_ec);
    CHECK(!*quick_ec);
    CHECK(!*slow_ec);
    CHECK(quick_at < slow_at);
    CHECK(slow_at - start >= 250ms);
    // Both statuses are still there: peek_exit() reads them, reap() takes them.
    const auto q = os::peek_exit(quick.pid), s = os::peek_exit(slow.pid);
    CHECK(q.exited);
    CHECK(q.code == 3);
    CHECK(s.exited);
    CHECK(s.code == 4);
    os::reap(quick.pid);
    os::reap(slow.pid);
}

TEST_CASE("Unix: closing an exit watcher ends its wait with operation_aborted, and the child is still there to end") {
    asio::io_context io;
    auto child = spawn_sh("sleep 30");
    os::exit_watcher watch(io.get_executor());
    watch.watch(child.pid, std::move(child.exit_handle));
    std::optional<asio::error_code> got;
    watch.async_wait([&](const asio::error_code& ec) { got = ec; });
    asio::steady_timer close_soon(io, 100ms);
    close_soon.async_wait([&](const asio::error_code&) { watch.close(); });
    const auto start = steady_clock::now();
    io.run_for(10s);
    REQUIRE(got);
    CHECK(*got == asio::error::operation_aborted);
    CHECK(steady_clock::now() - start < 5s);
    CHECK(!os::peek_exit(child.pid).exited);
    const auto ended = os::kill_and_reap_now(child.pid, 5000ms);
    CHECK(ended.exited);
    CHECK(ended.signal == SIGKILL);
}

TEST_CASE("Unix: a hundred children exiting together are each seen by their own watcher") {
    asio::io_context io;
    constexpr int n = 100;
    std::vector<os::spawned_child> children;
    std::vector<std::unique_ptr<os::exit_watcher>> watchers;
    int seen = 0;
    for (int i = 0; i < n; ++i) {
        children.push_back(spawn_sh("sleep 0.2"));
        watchers.push_back(std::make_unique<os::exit_watcher>(io.get_executor()));
        watchers.back()->watch(children.back().pid, std::move(children.back().exit_handle));
        watchers.back()->async_wait([&](const asio::error_code& ec) { seen += !ec; });
    }
    io.run_for(30s);
    CHECK(seen == n);
    for (const auto& c : children) {
        CHECK(os::peek_exit(c.pid).code == 0);
        os::reap(c.pid);
    }
}
#endif
