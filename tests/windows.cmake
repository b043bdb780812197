# The suite on Windows (WIN32: the MinGW-w64 cross build of cmake/toolchains/, run under Wine):
# only the test files whose library headers compile for Windows today. Included by
# CMakeLists.txt instead of the rest of it.
#
# Every other test file, and support/doctest_main.cpp, stops at the first POSIX header the
# library reaches, <sys/syscall.h> in process_audit.hpp: through mcp_loadtest/doctest.hpp,
# through session_info.hpp -> detail/os/child_process.hpp (the sessions and transports), or, for
# test_histogram.cpp, through load_report.hpp -> leak_detection.hpp -> process_sampling.hpp,
# whose definitions (impl/process_sampling.ipp) header-only mode includes.
if(MCP_LOADTEST_SEPARATE_COMPILATION)
  message(FATAL_ERROR "MCP_LOADTEST_SEPARATE_COMPILATION does not build for Windows yet: its parts "
                      "compile every definition, process_audit's (POSIX) too. Configure it OFF.")
endif()

add_library(mcp_loadtest_doctest_main STATIC support/doctest_main_windows.cpp)
target_link_libraries(mcp_loadtest_doctest_main PUBLIC doctest::doctest)

# As mcp_loadtest_doctest_suite() in CMakeLists.txt, without its precompiled header (the whole
# library, which does not compile here) and without the server-process fixture (no test here
# starts one). Each case runs in its own Wine process, through CMAKE_CROSSCOMPILING_EMULATOR.
function(mcp_loadtest_windows_suite target prefix)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE mcp_loadtest_doctest_main)
  mcp_loadtest_configure_test_target(${target})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  doctest_discover_tests(${target} TEST_PREFIX "${prefix}: " PROPERTIES TIMEOUT 120)
endfunction()

mcp_loadtest_windows_suite(test_wire_formats "wire" test_wire_formats.cpp)
mcp_loadtest_windows_suite(test_os "os" test_os.cpp)
target_link_libraries(test_os PRIVATE shell32)
add_dependencies(test_os mcp_fixture_server)  # its Windows cases start the C++ fixture server  # CommandLineToArgvW, which the tests check the quoting against
