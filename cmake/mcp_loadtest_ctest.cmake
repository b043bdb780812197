# mcp_loadtest_discover_tests(): CTest registration of a test binary's tests,
# beside doctest_discover_tests / catch_discover_tests / gtest_discover_tests,
# which it calls. Every test of the target is registered as the framework's own
# function registers it; its MCP_LOADTEST_CASEs (MCP_LOADTEST_TEST under
# GoogleTest) also get
#   LABELS          the given LABELS (default mcp_loadtest), after any in PROPERTIES
#   RESOURCE_LOCK   RESOURCE_LOCK (default mcp_loadtest_load): under `ctest -j` no two
#                   load cases run at once (plain unit tests still run beside each other)
#   TIMEOUT         the case's time limit (MCP_LOADTEST_CASE_LIMIT, else the default
#                   limit) plus TIMEOUT_MARGIN seconds (default 30): the case's own limit
#                   fires first, with its message and run directory
#   ATTACHED_FILES  <RUN_ROOT>/<case>/latest/report.{json,md,html} and latency.hlog (CDash)
# and every test gets ENVIRONMENT MCP_LOADTEST_RUN_ROOT=<RUN_ROOT> (default
# ${CMAKE_CURRENT_BINARY_DIR}/mcp-loadtest-runs), MCP_LOADTEST_BASELINE_DIR=<BASELINE_DIR>
# (default ${CMAKE_CURRENT_SOURCE_DIR}) and the ENVIRONMENT entries given.
#
#   mcp_loadtest_discover_tests(<target>
#       [FRAMEWORK doctest|catch2|gtest]   # default: from the target's link libraries
#       [LABELS <label>...] [RESOURCE_LOCK <name>] [TIMEOUT_MARGIN <seconds>]
#       [RUN_ROOT <dir>] [BASELINE_DIR <dir>] [ENVIRONMENT <VAR=value>...]
#       [TEST_PREFIX <prefix>] [TEST_SUFFIX <suffix>] [WORKING_DIRECTORY <dir>]
#       [EXTRA_ARGS <arg>...] [TEST_LIST <variable>]
#       [PROPERTIES <name> <value>...])    # every test of the target; must come last
#
# Which tests are load cases is read from the binary after each build: run with
# its framework's listing flag and $MCP_LOADTEST_LIST_CASES=<file>, the library
# writes its registry of cases (name, limit, slug) to <file> as the program exits.
include_guard(GLOBAL)

set(_MCP_LOADTEST_ADD_TESTS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/mcp_loadtest_add_tests.cmake" CACHE INTERNAL "")

function(mcp_loadtest_discover_tests target)
  # PROPERTIES comes last and takes the rest (its LABELS / ENVIRONMENT are not ours).
  set(own_args ${ARGN})
  set(arg_PROPERTIES "")
  list(FIND own_args PROPERTIES at)
  if(NOT at EQUAL -1)
    math(EXPR after "${at} + 1")
    list(SUBLIST own_args ${after} -1 arg_PROPERTIES)
    list(SUBLIST own_args 0 ${at} own_args)
  endif()
  cmake_parse_arguments(arg ""
    "FRAMEWORK;RESOURCE_LOCK;TIMEOUT_MARGIN;RUN_ROOT;BASELINE_DIR;TEST_PREFIX;TEST_SUFFIX;WORKING_DIRECTORY;TEST_LIST"
    "LABELS;ENVIRONMENT;EXTRA_ARGS" ${own_args})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcp_loadtest_discover_tests(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "mcp_loadtest_discover_tests: '${target}' is not a target; call it after add_executable(${target} ...)")
  endif()
  if(NOT DEFINED arg_LABELS)
    set(arg_LABELS mcp_loadtest)
  endif()
  if(NOT arg_RESOURCE_LOCK)
    set(arg_RESOURCE_LOCK mcp_loadtest_load)
  endif()
  if(NOT DEFINED arg_TIMEOUT_MARGIN)
    set(arg_TIMEOUT_MARGIN 30)
  endif()
  if(NOT arg_RUN_ROOT)
    set(arg_RUN_ROOT "${CMAKE_CURRENT_BINARY_DIR}/mcp-loadtest-runs")
  endif()
  if(NOT arg_BASELINE_DIR)
    set(arg_BASELINE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  if(NOT arg_TEST_LIST)
    set(arg_TEST_LIST ${target}_TESTS)
  endif()

  # The framework: named, or read from what the target links.
  if(NOT arg_FRAMEWORK)
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(libs MATCHES "doctest")
      set(arg_FRAMEWORK doctest)
    elseif(libs MATCHES "Catch2|catch2")
      set(arg_FRAMEWORK catch2)
    elseif(libs MATCHES "GTest|gtest|gmock")
      set(arg_FRAMEWORK gtest)
    else()
      message(FATAL_ERROR "mcp_loadtest_discover_tests(${target}): cannot tell its test framework from what it links "
                          "(${libs}); say FRAMEWORK doctest, catch2 or gtest")
    endif()
  endif()

  # LABELS and ENVIRONMENT given in PROPERTIES are merged with ours (the
  # frameworks' scripts would flatten or overwrite them); the rest goes through.
  set(plain_labels "")
  set(environment ${arg_ENVIRONMENT})
  set(passed_properties "")
  list(LENGTH arg_PROPERTIES n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "mcp_loadtest_discover_tests(${target}): PROPERTIES must be name/value pairs; give several "
                        "environment variables with the ENVIRONMENT argument")
  endif()
  set(i 0)
  while(i LESS n)
    math(EXPR j "${i} + 1")
    list(GET arg_PROPERTIES ${i} key)
    list(GET arg_PROPERTIES ${j} value)
    if(key STREQUAL "LABELS")
      list(APPEND plain_labels ${value})
    elseif(key STREQUAL "ENVIRONMENT")
      list(APPEND environment ${value})
    else()
      list(APPEND passed_properties ${key} ${value})
    endif()
    math(EXPR i "${i} + 2")
  endwhile()
  list(APPEND environment "MCP_LOADTEST_RUN_ROOT=${arg_RUN_ROOT}" "MCP_LOADTEST_BASELINE_DIR=${arg_BASELINE_DIR}")
  set(load_labels ${plain_labels} ${arg_LABELS})

  set(common TEST_PREFIX "${arg_TEST_PREFIX}" TEST_SUFFIX "${arg_TEST_SUFFIX}" TEST_LIST ${arg_TEST_LIST}
             WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
  if(arg_EXTRA_ARGS)
    list(APPEND common EXTRA_ARGS ${arg_EXTRA_ARGS})
  endif()
  if(passed_properties)
    list(APPEND common PROPERTIES ${passed_properties})
  endif()
  if(arg_FRAMEWORK STREQUAL "doctest")
    if(NOT COMMAND doctest_discover_tests)
      include(doctest)
    endif()
    doctest_discover_tests(${target} ${common})
    set(list_flag --list-test-cases)
  elseif(arg_FRAMEWORK STREQUAL "catch2")
    if(NOT COMMAND catch_discover_tests)
      include(Catch)
    endif()
    catch_discover_tests(${target} ${common})
    set(list_flag --list-tests)
  elseif(arg_FRAMEWORK STREQUAL "gtest")
    if(NOT COMMAND gtest_discover_tests)
      include(GoogleTest)
    endif()
    gtest_discover_tests(${target} ${common} DISCOVERY_MODE POST_BUILD)
    set(list_flag --gtest_list_tests)
  else()
    message(FATAL_ERROR "mcp_loadtest_discover_tests(${target}): FRAMEWORK must be doctest, catch2 or gtest, not '${arg_FRAMEWORK}'")
  endif()

  # After each build: list the binary's load cases and write the CTest script
  # that gives them their properties (read by ctest after the framework's own).
  # The frameworks pass the prefix and suffix through `cmake -D`, which drops
  # trailing blanks ("example: " names tests "example:..."): name them alike.
  string(REGEX REPLACE "[ \t]+$" "" prefix "${arg_TEST_PREFIX}")
  string(REGEX REPLACE "[ \t]+$" "" suffix "${arg_TEST_SUFFIX}")
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}_mcp_loadtest")
  set(ctest_file "${base}_tests.cmake")
  set(settings "${base}_settings-$<CONFIG>.cmake")
  set(executor "")
  if(CMAKE_CROSSCOMPILING_EMULATOR)
    set(executor "${CMAKE_CROSSCOMPILING_EMULATOR}")
  endif()
  file(GENERATE OUTPUT "${settings}" CONTENT
"set(TEST_EXECUTABLE [==[$<TARGET_FILE:${target}>]==])
set(TEST_EXECUTOR [==[${executor}]==])
set(LIST_FLAG [==[${list_flag}]==])
set(FRAMEWORK [==[${arg_FRAMEWORK}]==])
set(WORKING_DIRECTORY [==[${arg_WORKING_DIRECTORY}]==])
set(TEST_PREFIX [==[${prefix}]==])
set(TEST_SUFFIX [==[${suffix}]==])
set(TEST_LIST [==[${arg_TEST_LIST}]==])
set(PLAIN_LABELS [==[${plain_labels}]==])
set(LOAD_LABELS [==[${load_labels}]==])
set(ENVIRONMENT [==[${environment}]==])
set(RESOURCE_LOCK [==[${arg_RESOURCE_LOCK}]==])
set(TIMEOUT_MARGIN [==[${arg_TIMEOUT_MARGIN}]==])
set(RUN_ROOT [==[${arg_RUN_ROOT}]==])
set(LISTING_FILE [==[${base}_cases.jsonl]==])
set(CTEST_FILE [==[${ctest_file}]==])
")
  add_custom_command(TARGET ${target} POST_BUILD
    BYPRODUCTS "${ctest_file}"
    COMMAND "${CMAKE_COMMAND}" -D "SETTINGS=${settings}" -P "${_MCP_LOADTEST_ADD_TESTS_SCRIPT}"
    VERBATIM)
  set(include_file "${base}_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
