// doctest main for the Windows build (tests/windows.cmake). The suite's own main
// (doctest_main.cpp) ends with the audit of support/leak_check.hpp, which reads /proc and
// includes process_audit.hpp (POSIX); none of the tests built for Windows starts a server.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <fcntl.h>
#include <io.h>

int main(int argc, char** argv) {
    // Binary stdout: in the C runtime's text mode each line ends in "\r\n", and
    // doctest_discover_tests, which splits --list-test-cases on "\n", would register every
    // name with a trailing "\r" (and the separator line as a test).
    _setmode(_fileno(stdout), _O_BINARY);
    doctest::Context context(argc, argv);
    return context.run();
}
