# Cross build for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix: the
# POSIX thread model, which std::thread and std::mutex need), tests run under Wine (wine64).
#
#   cmake --workflow --preset windows-wine
#
# The header-only dependencies are the host's (Debian's libasio-dev, nlohmann-json3-dev,
# doctest-dev, catch2). Their directory, /usr/include, also holds glibc's headers, so it is never put
# on the include path: the build directory gets a small sysroot of symlinks to exactly those
# headers, and find_path()/find_package() search only it (and MinGW's own), so the project's
# usual look-ups find them there.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

# Windows 10 APIs; Asio warns without a target version.
set(CMAKE_CXX_FLAGS_INIT "-D_WIN32_WINNT=0x0A00")
# libgcc, libstdc++ and winpthread linked in: the .exe runs without MinGW's DLLs on the PATH.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# Winsock (Asio), mswsock (AcceptEx, ConnectEx) and psapi (process memory counters), after the
# objects, where GNU ld needs them: appended to the platform's default libraries there.
set(CMAKE_USER_MAKE_RULES_OVERRIDE_CXX ${CMAKE_CURRENT_LIST_DIR}/mingw-link-libraries.cmake)

set(MCP_LOADTEST_MINGW_HOST_PREFIX /usr CACHE PATH
    "Prefix of the host's header-only Asio, nlohmann-json, doctest and Catch2 v2 (and their CMake files)")
set(MCP_LOADTEST_MINGW_DEPS ${CMAKE_BINARY_DIR}/mingw-deps)

# The sysroot of symlinks, remade at every configure (not in try_compile's scratch projects).
get_property(mcp_loadtest_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT mcp_loadtest_in_try_compile)
  set(host ${MCP_LOADTEST_MINGW_HOST_PREFIX})
  set(deps ${MCP_LOADTEST_MINGW_DEPS})
  file(MAKE_DIRECTORY ${deps}/include ${deps}/share/cmake ${deps}/lib/cmake/doctest ${deps}/lib/cmake/Catch2)
  foreach(entry asio asio.hpp nlohmann doctest catch2)
    if(EXISTS ${host}/include/${entry})
      file(CREATE_LINK ${host}/include/${entry} ${deps}/include/${entry} SYMBOLIC)
    endif()
  endforeach()
  # valijson (strict mode): Debian's package, or its headers unpacked into /usr/local
  # (.ci/install-deps.sh). Its config, like nlohmann_json's, finds the headers beside itself.
  foreach(prefix ${host} /usr/local)
    if(EXISTS ${prefix}/include/valijson AND EXISTS ${prefix}/share/cmake/valijson)
      file(CREATE_LINK ${prefix}/include/valijson ${deps}/include/valijson SYMBOLIC)
      file(CREATE_LINK ${prefix}/share/cmake/valijson ${deps}/share/cmake/valijson SYMBOLIC)
      break()
    endif()
  endforeach()
  # nlohmann_json's config derives its include directory from its own path: through the link,
  # the sysroot's include/.
  if(EXISTS ${host}/share/cmake/nlohmann_json)
    file(CREATE_LINK ${host}/share/cmake/nlohmann_json ${deps}/share/cmake/nlohmann_json SYMBOLIC)
  endif()
  # Debian's doctest and Catch2 v2 configs name /usr/include outright (Catch2's through a
  # realpath, so even through a link): a config of our own for each, an imported target on the
  # sysroot's headers and the host's discovery module (doctest_discover_tests(), Catch.cmake),
  # which runs the tests through CMAKE_CROSSCOMPILING_EMULATOR. Written only when it changes:
  # find_package() makes it an input of the build system.
  function(mcp_loadtest_mingw_header_only_config package target discovery_module)
    set(dir lib/cmake/${package})
    if(NOT EXISTS ${host}/${dir}/${discovery_module})
      return()
    endif()
    file(CREATE_LINK ${host}/${dir}/${package}ConfigVersion.cmake
         ${deps}/${dir}/${package}ConfigVersion.cmake SYMBOLIC)
    file(CONFIGURE OUTPUT ${deps}/${dir}/${package}Config.cmake @ONLY CONTENT [[
# Made by the MinGW toolchain file (cmake/toolchains/x86_64-w64-mingw32.cmake).
if(NOT TARGET @target@)
  add_library(@target@ INTERFACE IMPORTED)
  set_target_properties(@target@ PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "@deps@/include" INTERFACE_COMPILE_FEATURES cxx_std_11)
endif()
list(APPEND CMAKE_MODULE_PATH "@host@/@dir@")
]])
  endfunction()
  mcp_loadtest_mingw_header_only_config(doctest doctest::doctest doctest.cmake)
  mcp_loadtest_mingw_header_only_config(Catch2 Catch2::Catch2 Catch.cmake)
  unset(host)
  unset(deps)
endif()

# Headers, libraries and packages: from the sysroot of links and MinGW's own; programs
# (Python, Wine): from the host.
set(CMAKE_FIND_ROOT_PATH ${MCP_LOADTEST_MINGW_DEPS} /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The tests (and doctest's discovery, at build time) run under Wine, in a prefix of the build
# directory's own, bounded in time (wine-run.sh).
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run.sh ${CMAKE_BINARY_DIR}/wine-prefix)
