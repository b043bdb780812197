# Run after each build of a target given to mcp_loadtest_discover_tests()
# (cmake -D SETTINGS=<file> -P this): lists the binary's MCP_LOADTEST_CASEs and
# writes the CTest script that gives them their properties.
include("${SETTINGS}")

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "mcp_loadtest_discover_tests: '${TEST_EXECUTABLE}' does not exist")
endif()
file(REMOVE "${LISTING_FILE}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "MCP_LOADTEST_LIST_CASES=${LISTING_FILE}"
          ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${LIST_FLAG}
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  OUTPUT_VARIABLE output ERROR_VARIABLE output
  RESULT_VARIABLE result
  TIMEOUT 60)
# Catch2 exits with the number of tests it listed; the others with 0.
if(NOT result MATCHES "^[0-9]+$" OR (NOT FRAMEWORK STREQUAL "catch2" AND NOT result EQUAL 0))
  message(FATAL_ERROR "mcp_loadtest_discover_tests: listing the cases of '${TEST_EXECUTABLE}' (${LIST_FLAG}) "
                      "failed: ${result}\n${output}")
endif()

# A binary without any MCP_LOADTEST_CASE writes no listing.
set(cases "")
if(EXISTS "${LISTING_FILE}")
  file(READ "${LISTING_FILE}" cases)
endif()
string(STRIP "${cases}" cases)
string(REPLACE "\n" "," cases "[${cases}]")
string(JSON count LENGTH "${cases}")

function(bracket out value)
  set(${out} "[==[${value}]==]" PARENT_SCOPE)
endfunction()

bracket(environment "${ENVIRONMENT}")
bracket(plain_labels "${PLAIN_LABELS}")
bracket(load_labels "${LOAD_LABELS}")
bracket(lock "${RESOURCE_LOCK}")
set(script "# Written by mcp_loadtest_add_tests.cmake from ${TEST_EXECUTABLE}'s MCP_LOADTEST_CASEs.\n")
string(APPEND script "set(_mlt_tests \${${TEST_LIST}})\n"
                     "foreach(_mlt_test IN LISTS _mlt_tests)\n"
                     "  set_tests_properties(\"\${_mlt_test}\" PROPERTIES ENVIRONMENT ${environment})\n")
if(PLAIN_LABELS)
  string(APPEND script "  set_tests_properties(\"\${_mlt_test}\" PROPERTIES LABELS ${plain_labels})\n")
endif()
string(APPEND script "endforeach()\n")
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${cases}" ${i} name)
    string(JSON slug GET "${cases}" ${i} slug)
    string(JSON limit_ms GET "${cases}" ${i} time_limit_ms)
    math(EXPR timeout "(${limit_ms} + 999) / 1000 + ${TIMEOUT_MARGIN}")
    set(latest "${RUN_ROOT}/${slug}/latest")
    bracket(test "${TEST_PREFIX}${name}${TEST_SUFFIX}")
    bracket(attached "${latest}/report.json;${latest}/report.md;${latest}/report.html;${latest}/latency.hlog")
    string(APPEND script
      "list(FIND _mlt_tests ${test} _mlt_at)\n"
      "if(NOT _mlt_at EQUAL -1)\n"
      "  set_tests_properties(${test} PROPERTIES LABELS ${load_labels} RESOURCE_LOCK ${lock} TIMEOUT ${timeout}\n"
      "                       ATTACHED_FILES ${attached})\n"
      "endif()\n")
  endforeach()
endif()
file(WRITE "${CTEST_FILE}" "${script}")
