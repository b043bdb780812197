set(VCPKG_BUILD_TYPE release) # header-only

# Overlay port from a checkout of mcp-loadtest (--overlay-ports=<checkout>/packaging/vcpkg):
# build the checkout this file is in. vcpkg's ABI hash covers this port's files, not the
# checkout's sources: after changing them, remove the package and install it again with
# --no-binarycaching.
get_filename_component(checkout "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(EXISTS "${checkout}/include/mcp_loadtest/version.hpp"
        AND EXISTS "${checkout}/packaging/vcpkg/mcp-loadtest/portfile.cmake")
    set(SOURCE_PATH "${checkout}")
else()
    # Registry port (this directory copied into a registry's ports/).
    # PLACEHOLDERS, to fill in once mcp-loadtest is published and tagged:
    #   repo   the GitHub owner/name of mcp-loadtest
    #   SHA512 of the release tarball: leave 0 once, vcpkg prints the real hash in its error
    set(repo "<OWNER>/mcp-loadtest")  # PLACEHOLDER
    if(repo MATCHES "^<OWNER>/")
        message(FATAL_ERROR "${PORT}: this port's GitHub repository and SHA512 are placeholders. "
            "Fill them in, or use the port as an overlay from a checkout of mcp-loadtest "
            "(--overlay-ports=<checkout>/packaging/vcpkg).")
    endif()
    vcpkg_from_github(
        OUT_SOURCE_PATH SOURCE_PATH
        REPO "${repo}"
        REF "v${VERSION}"
        SHA512 0  # PLACEHOLDER
        HEAD_REF main
    )
    # Or, for an overlay copy of this port elsewhere, build a local checkout instead of the
    # vcpkg_from_github call above:
    # set(SOURCE_PATH "/path/to/mcp-loadtest")
endif()

vcpkg_check_features(OUT_FEATURE_OPTIONS FEATURE_OPTIONS
    FEATURES
        tls MCP_LOADTEST_TLS
        tls CMAKE_REQUIRE_FIND_PACKAGE_OpenSSL  # fail, rather than install without TLS, if OpenSSL is not found
)

# The same options as packaging/conan/conanfile.py (.ci/check-packaging.sh checks they agree).
vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        ${FEATURE_OPTIONS}
        -DMCP_LOADTEST_BUILD_TESTS=OFF
        -DMCP_LOADTEST_BUILD_EXAMPLES=OFF
        -DMCP_LOADTEST_BUILD_BENCH=OFF
    MAYBE_UNUSED_VARIABLES
        CMAKE_REQUIRE_FIND_PACKAGE_OpenSSL
)

vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME mcp-loadtest CONFIG_PATH share/mcp-loadtest/cmake)

# Header-only, so the .pc is installed to share/pkgconfig; vcpkg's post-build checks accept
# share/pkgconfig only without a Libs: line, and it has `Libs: -pthread`.
file(MAKE_DIRECTORY "${CURRENT_PACKAGES_DIR}/lib/pkgconfig")
file(RENAME "${CURRENT_PACKAGES_DIR}/share/pkgconfig/mcp-loadtest.pc" "${CURRENT_PACKAGES_DIR}/lib/pkgconfig/mcp-loadtest.pc")
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/share/pkgconfig")
vcpkg_fixup_pkgconfig()

vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
