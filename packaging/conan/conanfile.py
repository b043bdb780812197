import os
import re

from conan import ConanFile
from conan.errors import ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rmdir
from conan.tools.scm import Version

required_conan_version = ">=2.0"

# .ci/check-packaging.sh reads these two literals: it configures and installs a copy of the
# exported files with these options (without Conan, which CI does not have).
# What the package is built from, relative to the checkout (the recipe is in packaging/conan/).
EXPORTED_SOURCES = ("CMakeLists.txt", "LICENSE", "cmake/*", "include/*", "src/*")
# The CMake options besides MCP_LOADTEST_TLS (the with_tls option); the vcpkg port passes the
# same ones (packaging/vcpkg/mcp-loadtest/portfile.cmake).
CMAKE_OPTIONS = {
    "MCP_LOADTEST_BUILD_TESTS": False,
    "MCP_LOADTEST_BUILD_EXAMPLES": False,
    "MCP_LOADTEST_BUILD_BENCH": False,
}

# The systems with an operating-system backend, and the system libraries the CMake target
# links on each (CMakeLists.txt; Windows: Winsock for Asio, mswsock, psapi).
SUPPORTED_OS = ("Linux", "Windows")
SYSTEM_LIBS = {
    "Linux": ["pthread"],
    "Windows": ["ws2_32", "mswsock", "psapi"],
}


class McpLoadtestConan(ConanFile):
    name = "mcp-loadtest"
    description = "Header-only C++20 library to load-test and bug-hunt MCP servers from unit tests"
    license = "MIT"
    topics = ("mcp", "model-context-protocol", "load-testing", "testing", "asio", "coroutines", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    options = {
        "with_tls": [True, False],
    }
    default_options = {
        "with_tls": True,
    }
    no_copy_source = True

    # This recipe lives in packaging/conan/ of the mcp-loadtest checkout.
    _project_root = os.path.join("..", "..")

    @property
    def _min_cppstd(self):
        return 20

    @property
    def _compilers_minimum_version(self):
        # The oldest compilers CI builds the library with (docs/index.md, "Compiler notes").
        return {
            "gcc": "12",
            "clang": "16",
        }

    def set_version(self):
        # `conan create packaging/conan` without --version: the version of the CMake project.
        if not self.version:
            cmakelists = load(self, os.path.join(self.recipe_folder, self._project_root, "CMakeLists.txt"))
            self.version = re.search(r"project\(\s*mcp-loadtest\s+VERSION\s+([0-9.]+)", cmakelists).group(1)

    def export_sources(self):
        root = os.path.join(self.recipe_folder, self._project_root)
        for pattern in EXPORTED_SOURCES:
            copy(self, pattern, root, self.export_sources_folder)

    def layout(self):
        # Local flow (conan install/build packaging/conan): the checkout is the source folder.
        # In the cache the exported sources are the source folder and this is ignored.
        self.folders.root = self._project_root
        cmake_layout(self, build_folder="build/conan")

    def requirements(self):
        # All of them are included by public headers: a header-library's requirements are
        # transitive (headers and libs) by default.
        self.requires("asio/1.32.0")
        self.requires("nlohmann_json/3.11.3")
        # Strict mode's JSON Schema validator (<mcp_loadtest/strict.hpp>), header-only.
        self.requires("valijson/[>=1.0 <2]")
        if self.options.with_tls:
            self.requires("openssl/[>=1.1 <4]")

    def package_id(self):
        self.info.clear()

    def validate(self):
        check_min_cppstd(self, self._min_cppstd)
        minimum_version = self._compilers_minimum_version.get(str(self.settings.compiler))
        if minimum_version and Version(self.settings.compiler.version) < minimum_version:
            raise ConanInvalidConfiguration(
                f"{self.ref} requires C++{self._min_cppstd} coroutines, checked with "
                f"{self.settings.compiler} >= {minimum_version}."
            )
        # The operating-system backends (include/mcp_loadtest/detail/os/): Linux, and Windows
        # (MinGW-w64; stdio servers and run(), the network transports are being ported). The
        # vcpkg port's "supports" says the same (.ci/check-packaging.sh checks they agree).
        if str(self.settings.os) not in SUPPORTED_OS:
            raise ConanInvalidConfiguration(
                f"{self.ref} supports Linux and Windows only, not {self.settings.os}: it starts and "
                f"supervises server processes through an operating-system backend "
                f"(include/mcp_loadtest/detail/os/), and has none for {self.settings.os} yet."
            )

    def generate(self):
        tc = CMakeToolchain(self)
        for name, value in CMAKE_OPTIONS.items():
            tc.cache_variables[name] = value
        tc.cache_variables["MCP_LOADTEST_TLS"] = bool(self.options.with_tls)
        if self.options.with_tls:
            # Fail instead of silently packaging without TLS when OpenSSL is not found.
            tc.cache_variables["CMAKE_REQUIRE_FIND_PACKAGE_OpenSSL"] = True
        tc.generate()
        deps = CMakeDeps(self)
        deps.generate()

    def build(self):
        # Header-only: configuring checks the dependencies and generates the install rules.
        cmake = CMake(self)
        cmake.configure()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()
        # share/mcp-loadtest/cmake (CMake config) and share/pkgconfig (mcp-loadtest.pc):
        # CMakeDeps and PkgConfigDeps generate them from package_info() instead.
        rmdir(self, os.path.join(self.package_folder, "share"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "mcp-loadtest")
        self.cpp_info.set_property("cmake_target_name", "mcp_loadtest::mcp_loadtest")
        self.cpp_info.set_property("pkg_config_name", "mcp-loadtest")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []

        self.cpp_info.requires = ["asio::asio", "nlohmann_json::nlohmann_json", "valijson::valijson"]
        if self.options.with_tls:
            self.cpp_info.requires.extend(["openssl::ssl", "openssl::crypto"])
            self.cpp_info.defines.append("MCP_LOADTEST_WITH_TLS=1")
        self.cpp_info.system_libs.extend(SYSTEM_LIBS.get(str(self.settings.os), []))
        if self.settings.compiler == "gcc":
            # What the CMake target adds for GCC: -fcoroutines, and no false
            # mismatched-new-delete warnings on Asio's coroutine frames.
            self.cpp_info.cxxflags.extend(["-fcoroutines", "-Wno-mismatched-new-delete"])
        if self.settings.os == "Windows":
            # What the CMake target adds on Windows: big objects (more sections than COFF's
            # default limit unless optimised).
            self.cpp_info.cxxflags.append("/bigobj" if self.settings.compiler == "msvc" else "-Wa,-mbig-obj")
