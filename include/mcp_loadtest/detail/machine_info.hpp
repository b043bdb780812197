// What a measurement was taken on, for baselines (report/baseline.hpp): the CPU model and core
// count, the compiler that built the test, and the kernel. Read once per call; nothing cached.
#pragma once

#include <fstream>
#include <string>
#include <thread>

#include <sys/utsname.h>

namespace mcp_loadtest::detail {

/// /proc/cpuinfo's "model name" (x86), else "Hardware" / "cpu model" / "Processor" (ARM, MIPS),
/// else "unknown".
inline std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line, fallback;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (key == "model name" && !value.empty()) return value;
        if ((key == "Hardware" || key == "cpu model" || key == "Processor") && fallback.empty()) fallback = value;
    }
    return fallback.empty() ? "unknown" : fallback;
}

inline unsigned cpu_cores() { return std::thread::hardware_concurrency(); }

/// The compiler of this translation unit, e.g. "GCC 12.2.0" or "Clang 16.0.6".
inline std::string compiler_id() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC " + std::to_string(_MSC_VER);
#else
    return "unknown compiler";
#endif
}

/// "Linux 6.1.0-18-amd64 x86_64".
inline std::string kernel_id() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

}  // namespace mcp_loadtest::detail
