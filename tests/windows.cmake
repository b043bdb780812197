# The suite on Windows (WIN32: the MinGW-w64 cross build of cmake/toolchains/, run under Wine):
# the test files that need no Python or Node fixture server. Included by CMakeLists.txt instead
# of the rest of it.
#
# Built here: the wire codecs, the OS layer (test_os.cpp) and the public API against the C++
# fixture server (test_portable.cpp: over stdio through a .cmd shim on PATH: calls, timeouts,
# close, run(), hang evidence, the detectors healthy and hung, session churn; over TCP,
# Streamable HTTP, WebSocket and legacy HTTP+SSE, started with launch()). The other test files start Python or Node fixtures,
# which Wine does not have here, and support/doctest_main.cpp's leak check reads /proc.
#
# Both modes of the library on Windows, in one build: test_portable links the library compiled
# once (mcp_loadtest::separate, its two parts) whatever MCP_LOADTEST_SEPARATE_COMPILATION says,
# and the other files follow the option (the windows-wine preset: header-only, as the Windows
# consumer way of .ci/check-consumers.sh). At -O1 the parts take 51 s and 42 s, and
# test_portable.cpp 16 s against them instead of 78 s header-only: about 30 s of CPU more than
# all header-only, for both modes tested (docs/benchmarks.md, "Separate compilation in the
# Windows stage").

add_library(mcp_loadtest_doctest_main STATIC support/doctest_main_windows.cpp)
target_link_libraries(mcp_loadtest_doctest_main PUBLIC doctest::doctest)

# As mcp_loadtest_doctest_suite() in CMakeLists.txt, without its precompiled header (three
# files, each compiled once) and without the server-process fixture (no Python here). Each case
# runs in its own Wine process, through CMAKE_CROSSCOMPILING_EMULATOR.
function(mcp_loadtest_windows_suite target prefix)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE mcp_loadtest_doctest_main)
  mcp_loadtest_configure_test_target(${target})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  doctest_discover_tests(${target} TEST_PREFIX "${prefix}: " PROPERTIES TIMEOUT 120)
endfunction()

mcp_loadtest_windows_suite(test_wire_formats "wire" test_wire_formats.cpp)
mcp_loadtest_windows_suite(test_os "os" test_os.cpp)
target_link_libraries(test_os PRIVATE shell32)  # CommandLineToArgvW, which the tests check the quoting against
add_dependencies(test_os mcp_fixture_server)  # its Windows cases start the C++ fixture server
mcp_loadtest_windows_suite(test_portable "portable" test_portable.cpp)
target_link_libraries(test_portable PRIVATE mcp_loadtest::separate)  # both modes tested here (above)
add_dependencies(test_portable mcp_fixture_server)
# The fixture's path as the test sees it under Wine, which shows the Unix root as drive Z:
# (a C string: each backslash doubled).
string(REPLACE "/" "\\\\" mcp_loadtest_native_fixture_wine "Z:${PROJECT_BINARY_DIR}/fixtures/native/mcp_fixture_server.exe")
target_compile_definitions(test_portable PRIVATE "MCP_LOADTEST_NATIVE_FIXTURE=\"${mcp_loadtest_native_fixture_wine}\"")

# Checks that preprocess with the cross compiler and the library's flags, on the build machine
# (as tests/CMakeLists.txt's mcp_loadtest_add_layout_check()). ARGN: the script and its arguments.
separate_arguments(mcp_loadtest_windows_probe_flags NATIVE_COMMAND "${CMAKE_CXX_FLAGS}")  # -D_WIN32_WINNT
function(mcp_loadtest_windows_layout_check name)
  add_test(NAME "${name}"
           COMMAND ${Python3_EXECUTABLE} ${ARGN} --cxx ${CMAKE_CXX_COMPILER} --
                   -std=gnu++20 -fcoroutines ${mcp_loadtest_windows_probe_flags}
                   "-I$<JOIN:$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:mcp_loadtest,INTERFACE_INCLUDE_DIRECTORIES>;$<TARGET_PROPERTY:doctest::doctest,INTERFACE_INCLUDE_DIRECTORIES>>,;-I>"
                   "-D$<JOIN:$<TARGET_PROPERTY:mcp_loadtest,INTERFACE_COMPILE_DEFINITIONS>,;-D>"
           COMMAND_EXPAND_LISTS)
  set_tests_properties("${name}" PROPERTIES LABELS layout TIMEOUT 300)
endfunction()
# The include graph on Windows too: a stdio-only case opens no network header there either
# (tests/check_include_graph.py).
mcp_loadtest_windows_layout_check("layout: a stdio-only case compiles no network headers (Windows)"
                                  ${CMAKE_CURRENT_SOURCE_DIR}/check_include_graph.py)
# The separate library on Windows: src/mcp_loadtest.cpp (impl/src.hpp, the hand-made recipe)
# reaches every definition file there too (tests/check_library_parts.py). The Linux-only ones
# compile to nothing, but are reached, as every backend file is on every system.
mcp_loadtest_windows_layout_check("layout: every definition file is in exactly one part of the separate library (Windows)"
                                  ${CMAKE_CURRENT_SOURCE_DIR}/check_library_parts.py ${PROJECT_SOURCE_DIR})
