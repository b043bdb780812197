# Finds mcp-loadtest's dependencies. Shared by the build tree and the
# installed package config, so consumers resolve them the same way.
include(CMakeFindDependencyMacro)

# Standalone Asio: vcpkg and Conan export asio::asio; Debian's libasio-dev
# ships only headers, so fall back to finding asio.hpp.
if(NOT TARGET asio::asio)
  find_package(asio CONFIG QUIET)
endif()
if(NOT TARGET asio::asio)
  find_path(MCP_LOADTEST_ASIO_INCLUDE_DIR asio.hpp)
  if(NOT MCP_LOADTEST_ASIO_INCLUDE_DIR)
    message(FATAL_ERROR
      "mcp-loadtest needs standalone Asio >= 1.22.1 and could not find asio.hpp.\n"
      "Install it (Debian/Ubuntu: apt-get install libasio-dev; vcpkg: vcpkg install asio; "
      "Conan: asio/1.32.0) or point CMake at it with -DMCP_LOADTEST_ASIO_INCLUDE_DIR=/path/to/asio/include.")
  endif()
  add_library(asio::asio INTERFACE IMPORTED)
  set_target_properties(asio::asio PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${MCP_LOADTEST_ASIO_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "ASIO_STANDALONE;ASIO_NO_DEPRECATED")
endif()

if(NOT TARGET nlohmann_json::nlohmann_json)
  find_dependency(nlohmann_json 3.10)
endif()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)

# OpenSSL (optional): TLS for https:// and wss://. In the build tree the
# MCP_LOADTEST_TLS option decides; an installed package records what it was built with.
if(NOT DEFINED MCP_LOADTEST_TLS_ENABLED)
  set(MCP_LOADTEST_TLS_ENABLED OFF)
  if(MCP_LOADTEST_TLS)
    find_package(OpenSSL 1.1 QUIET)
    if(OPENSSL_FOUND)
      set(MCP_LOADTEST_TLS_ENABLED ON)
    else()
      message(STATUS "mcp-loadtest: OpenSSL not found, https:// and wss:// disabled (apt-get install libssl-dev)")
    endif()
  endif()
elseif(MCP_LOADTEST_TLS_ENABLED)
  find_dependency(OpenSSL 1.1)
endif()

# valijson (optional, header-only): the JSON Schema validator behind strict
# mode (<mcp_loadtest/strict.hpp>); nothing else needs it. Its config names the
# target ValiJSON::valijson (vcpkg), valijson::valijson (Conan) or valijson (Debian).
if(NOT DEFINED MCP_LOADTEST_VALIJSON_TARGET)
  find_package(valijson CONFIG QUIET)
  set(MCP_LOADTEST_VALIJSON_TARGET "")
  foreach(candidate ValiJSON::valijson valijson::valijson valijson)
    if(TARGET ${candidate} AND NOT MCP_LOADTEST_VALIJSON_TARGET)
      set(MCP_LOADTEST_VALIJSON_TARGET ${candidate})
    endif()
  endforeach()
  if(NOT MCP_LOADTEST_VALIJSON_TARGET)
    message(STATUS "mcp-loadtest: valijson not found, strict mode (<mcp_loadtest/strict.hpp>) unavailable "
                   "(apt-get install libvalijson-dev; vcpkg/Conan: valijson)")
  endif()
elseif(MCP_LOADTEST_VALIJSON_TARGET)
  find_dependency(valijson CONFIG)
endif()
