// The operating-system layer (detail/os/) on its own, on every platform it has a
// backend for: the same checks run on Linux natively and on Windows under Wine.
// Nothing here starts a server: it reads this process and a child of its own.
#include <doctest/doctest.h>
#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
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
