# Shared by the CMake consumer projects (find_package/, add_subdirectory/,
# fetchcontent/): once mcp_loadtest::mcp_loadtest exists, the consumer test is
# linked to it the way a user's test is, and registered with CTest.
set(EXPECT_TLS 1 CACHE STRING "1 when the library is expected to have TLS (MCP_LOADTEST_WITH_TLS), else 0")
find_package(doctest REQUIRED)
find_program(MCP_LOADTEST_CONSUMER_PYTHON NAMES python3 REQUIRED)
# mcp_loadtest::separate: the library compiled once (docs/compile-time.md).
set(MCP_LOADTEST_CONSUMER_TARGET mcp_loadtest::mcp_loadtest CACHE STRING "The mcp-loadtest target the consumer links")

add_executable(consumer_test ${CMAKE_CURRENT_LIST_DIR}/consumer_test.cpp)
target_link_libraries(consumer_test PRIVATE ${MCP_LOADTEST_CONSUMER_TARGET} doctest::doctest)
target_compile_definitions(consumer_test PRIVATE
  EXPECT_TLS=${EXPECT_TLS}
  PYTHON="${MCP_LOADTEST_CONSUMER_PYTHON}"
  ECHO_SERVER="${CMAKE_CURRENT_LIST_DIR}/../../fixtures/echo_server.py")
enable_testing()
add_test(NAME consumer_test COMMAND consumer_test)
set_tests_properties(consumer_test PROPERTIES TIMEOUT 60)
