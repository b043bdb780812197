# Shared set-up for mcp-loadtest's own tests and examples.
find_package(doctest REQUIRED)
find_package(Catch2 2 QUIET)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
# Resolve launcher shims (pyenv) to the real interpreter: fixtures start often.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print(sys.executable)"
                OUTPUT_VARIABLE MCP_LOADTEST_PYTHON OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT MCP_LOADTEST_PYTHON)
  set(MCP_LOADTEST_PYTHON ${Python3_EXECUTABLE})
endif()
include(doctest)
if(Catch2_FOUND)
  include(Catch)
endif()

set(MCP_LOADTEST_FIXTURES_DIR ${PROJECT_SOURCE_DIR}/fixtures)

# Every test depends on the suite fixture, whose cleanup step checks that no
# server process outlived the suite.
set(MCP_LOADTEST_TEST_PROPERTIES
  TIMEOUT 300
  FIXTURES_REQUIRED mcp_loadtest_suite
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")

function(mcp_loadtest_apply_sanitizers target)
  if(MCP_LOADTEST_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${MCP_LOADTEST_SANITIZE} -fno-omit-frame-pointer)
    if(MCP_LOADTEST_SANITIZE MATCHES "undefined")
      target_compile_options(${target} PRIVATE -fno-sanitize-recover=undefined)
    endif()
    target_link_options(${target} PRIVATE -fsanitize=${MCP_LOADTEST_SANITIZE})
  endif()
endfunction()

function(mcp_loadtest_configure_test_target target)
  target_link_libraries(${target} PRIVATE ${MCP_LOADTEST_LIBRARY})
  target_compile_definitions(${target} PRIVATE
    MCP_LOADTEST_TEST_FIXTURES="${MCP_LOADTEST_FIXTURES_DIR}"
    MCP_LOADTEST_TEST_PYTHON="${MCP_LOADTEST_PYTHON}")
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  mcp_loadtest_apply_sanitizers(${target})
endfunction()
