# Shared by the CMake consumer projects (find_package/, add_subdirectory/,
# fetchcontent/): once mcp_loadtest::mcp_loadtest exists, the consumer test is
# linked to it the way a user's test is, and registered with CTest.
set(EXPECT_TLS 1 CACHE STRING "1 when the library is expected to have TLS (MCP_LOADTEST_WITH_TLS), else 0")
find_package(doctest REQUIRED)
# mcp_loadtest::separate: the library compiled once (docs/compile-time.md).
set(MCP_LOADTEST_CONSUMER_TARGET mcp_loadtest::mcp_loadtest CACHE STRING "The mcp-loadtest target the consumer links")

add_executable(consumer_test ${CMAKE_CURRENT_LIST_DIR}/consumer_test.cpp)
target_link_libraries(consumer_test PRIVATE ${MCP_LOADTEST_CONSUMER_TARGET} doctest::doctest)
target_compile_definitions(consumer_test PRIVATE EXPECT_TLS=${EXPECT_TLS})
if(WIN32)
  # Windows (check-consumers.sh's MinGW-w64 cross build, run under Wine): no Python to count
  # on, so the echo server is the C++ fixture server (fixtures/native), built here.
  add_executable(mcp_fixture_server ${CMAKE_CURRENT_LIST_DIR}/../../fixtures/native/mcp_fixture_server.cpp)
  target_compile_features(mcp_fixture_server PRIVATE cxx_std_20)
  # The installed target brings Asio and, on Windows, Winsock (the fixture's --listen mode).
  target_link_libraries(mcp_fixture_server PRIVATE mcp_loadtest::mcp_loadtest nlohmann_json::nlohmann_json Threads::Threads)
  add_dependencies(consumer_test mcp_fixture_server)
  set(fixture "${CMAKE_CURRENT_BINARY_DIR}/mcp_fixture_server.exe")
  if(NOT CMAKE_HOST_WIN32)  # run under Wine, which shows the Unix root as drive Z:
    set(fixture "Z:${fixture}")
  endif()
  string(REPLACE "/" "\\\\" fixture "${fixture}")  # a C string: each backslash doubled
  target_compile_definitions(consumer_test PRIVATE "NATIVE_FIXTURE=\"${fixture}\"")
  unset(fixture)
else()
  find_program(MCP_LOADTEST_CONSUMER_PYTHON NAMES python3 REQUIRED)
  target_compile_definitions(consumer_test PRIVATE
    PYTHON="${MCP_LOADTEST_CONSUMER_PYTHON}"
    ECHO_SERVER="${CMAKE_CURRENT_LIST_DIR}/../../fixtures/echo_server.py")
endif()
enable_testing()
add_test(NAME consumer_test COMMAND consumer_test)
# Under Wine (CMAKE_CROSSCOMPILING_EMULATOR) the first run also makes the Wine prefix.
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set_tests_properties(consumer_test PROPERTIES TIMEOUT 180)
else()
  set_tests_properties(consumer_test PROPERTIES TIMEOUT 60)
endif()
