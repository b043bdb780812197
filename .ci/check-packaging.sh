#!/usr/bin/env bash
# Checks packaging/ (the vcpkg port and the Conan recipe) without vcpkg or Conan, which CI
# machines do not have:
#
#   port and recipe agree   the port's and the recipe's CMake options, names, versions and
#                           dependencies agree with each other, with CMakeLists.txt and with the
#                           test_package. The recipe is run with stand-ins for Conan's API (nothing
#                           of Conan is imported) to read what it really passes and declares.
#   vcpkg install           the checkout configured and installed with the port's options (its
#                           default features), Asio from a config package as vcpkg provides it;
#                           the layout the portfile's steps expect, those steps (config fixup,
#                           file(RENAME/REMOVE_RECURSE ...)) replayed, and what vcpkg's post-build
#                           checks would refuse (bin/, lib/ files, a .pc with Libs: in
#                           share/pkgconfig, empty directories, absolute paths)
#   Conan package           the recipe's exported files alone, configured and installed with its
#                           options (with_tls=True, then False), and what package() leaves
#   TLS, no OpenSSL         with TLS requested, a missing OpenSSL fails the configure
#   test_package            packaging/conan/test_package built against the installed package and
#                           run: Asio from a config package (asio::asio), from bare headers
#                           (Debian's libasio-dev), and the with_tls=False package
#
# One line per check; a failure shows the end of its log. Works in a temporary directory
# removed on exit (KEEP_WORK=1 keeps it); consumers are built at -O0, one at a time.
# shellcheck disable=SC2154  # port_options, config_path, ...: written to $work/options.sh by read_packaging
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
recipe=$root/packaging/conan
work=$(mktemp -d)
if [[ ${KEEP_WORK:-} == 1 ]]; then echo "work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi
mkdir "$work/logs"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
fake_asio=$work/asio-config-package

fail() { echo "check-packaging: $*" >&2; return 1; }

# --- port and recipe agree ------------------------------------------------------------
# Writes $work/options.sh: the options and names every later check uses.

read_packaging() {
  python3 - "$root" "$work/options.sh" <<'PY'
import json, os, re, shlex, sys, types

root, out = sys.argv[1], sys.argv[2]
port_dir = os.path.join(root, "packaging/vcpkg/mcp-loadtest")
recipe_dir = os.path.join(root, "packaging/conan")
problems = []
def check(ok, message):
    if not ok:
        problems.append(message)
    return ok
def read(*path):
    with open(os.path.join(root, *path)) as f:
        return f.read()

# CMakeLists.txt: the project's version and options.
cmakelists = read("CMakeLists.txt")
project_version = re.search(r"project\(\s*mcp-loadtest\s+VERSION\s+([0-9.]+)", cmakelists).group(1)
cmake_options = set(re.findall(r"^\s*option\((\w+)", cmakelists, re.M))
header_version = re.search(r'MCP_LOADTEST_VERSION_STRING "([^"]+)"', read("include/mcp_loadtest/version.hpp")).group(1)
check(header_version == project_version,
      f"version.hpp says {header_version}, CMakeLists.txt {project_version}")

# ---- the vcpkg port ----
manifest = json.loads(read("packaging/vcpkg/mcp-loadtest/vcpkg.json"))
portfile = re.sub(r"#.*", "", read("packaging/vcpkg/mcp-loadtest/portfile.cmake"))
def call_args(text, name):
    """The argument text of the first call `name(...)` in a CMake script, or None."""
    m = re.search(r"\b" + name + r"\(", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i - 1]
def unquote(word):
    return word.strip('"')

check(manifest.get("name") == "mcp-loadtest", f"vcpkg.json: name is {manifest.get('name')!r}")
check(manifest.get("version") == project_version,
      f"vcpkg.json: version {manifest.get('version')} but CMakeLists.txt says {project_version}")
check(manifest.get("license") == "MIT", "vcpkg.json: license is not MIT")
deps = {d if isinstance(d, str) else d["name"]: d for d in manifest.get("dependencies", [])}
for name in ("asio", "nlohmann-json", "valijson"):
    check(name in deps, f"vcpkg.json: no dependency on {name}")
for name in ("vcpkg-cmake", "vcpkg-cmake-config"):
    check(isinstance(deps.get(name), dict) and deps[name].get("host") is True,
          f"vcpkg.json: {name} is not a host dependency")
tls_feature = manifest.get("features", {}).get("tls", {})
check("openssl" in tls_feature.get("dependencies", []), "vcpkg.json: feature tls does not depend on openssl")

configure = call_args(portfile, "vcpkg_cmake_configure") or ""
port_options = dict(re.findall(r"-D(\w+)=(\S+)", configure))
check(port_options, "portfile.cmake: no -D options in vcpkg_cmake_configure")
check("${FEATURE_OPTIONS}" in configure, "portfile.cmake: vcpkg_cmake_configure does not pass ${FEATURE_OPTIONS}")
features = (call_args(portfile, "vcpkg_check_features") or "").split()
features = features[features.index("FEATURES") + 1:] if "FEATURES" in features else []
feature_map = {}
for feature, variable in zip(features[::2], features[1::2]):
    feature_map.setdefault(feature, []).append(variable)
check(set(feature_map) == set(manifest.get("features", {})),
      f"portfile.cmake maps features {sorted(feature_map)}, vcpkg.json declares {sorted(manifest.get('features', {}))}")
check("MCP_LOADTEST_TLS" in feature_map.get("tls", []), "portfile.cmake: feature tls does not set MCP_LOADTEST_TLS")
fixup = (call_args(portfile, "vcpkg_cmake_config_fixup") or "").split()
fixup = dict(zip(fixup[::2], map(unquote, fixup[1::2])))
package_name, config_path = fixup.get("PACKAGE_NAME"), fixup.get("CONFIG_PATH")
check(package_name and config_path, "portfile.cmake: vcpkg_cmake_config_fixup without PACKAGE_NAME and CONFIG_PATH")
check(re.search(r"set\(VCPKG_BUILD_TYPE release\)", portfile), "portfile.cmake: header-only, but not set(VCPKG_BUILD_TYPE release)")
check(re.search(r'vcpkg_install_copyright\(FILE_LIST "\$\{SOURCE_PATH\}/LICENSE"\)', portfile),
      "portfile.cmake: no vcpkg_install_copyright of ${SOURCE_PATH}/LICENSE")
check(re.search(r'file\(INSTALL "\$\{CMAKE_CURRENT_LIST_DIR\}/usage"', portfile), "portfile.cmake: the usage file is not installed")
port_fixes_pkgconfig = "vcpkg_fixup_pkgconfig(" in portfile
# What the portfile does to the installed files, in order: the config fixup, and its own
# file(MAKE_DIRECTORY|RENAME|REMOVE_RECURSE|REMOVE ...) of ${CURRENT_PACKAGES_DIR} paths.
port_steps = []
install_at = portfile.find("vcpkg_cmake_install(")
check(install_at >= 0, "portfile.cmake: no vcpkg_cmake_install()")
for m in re.finditer(r"\b(vcpkg_cmake_config_fixup|file)\(([^)]*)\)", portfile[install_at:]):
    if m.group(1) == "vcpkg_cmake_config_fixup":
        port_steps.append("FIXUP")
        continue
    words = [unquote(w) for w in m.group(2).split()]
    prefix = "${CURRENT_PACKAGES_DIR}/"
    if words[0] in ("MAKE_DIRECTORY", "RENAME", "REMOVE_RECURSE", "REMOVE"):
        paths = [w[len(prefix):] for w in words[1:] if w.startswith(prefix)]
        check(len(paths) == len(words) - 1,
              f"portfile.cmake: file({' '.join(words)}): every path should be under ${{CURRENT_PACKAGES_DIR}}")
        port_steps.append(" ".join([words[0]] + paths))
usage = read("packaging/vcpkg/mcp-loadtest/usage")

# ---- the Conan recipe, run with stand-ins for Conan's API ----
record = {}
class ConanInvalidConfiguration(Exception):
    pass
class Version:
    def __init__(self, v):
        self.v = tuple(int(x) for x in re.findall(r"\d+", str(v)))
    def __lt__(self, other):
        return self.v < Version(other).v
class Compiler(str):
    def __new__(cls, name, version, cppstd):
        s = super().__new__(cls, name)
        s.version, s.cppstd = version, cppstd
        return s
    def get_safe(self, name):
        return getattr(self, name, None)
class CppInfo:
    def __init__(self):
        self.properties, self.requires, self.defines, self.system_libs, self.cxxflags = {}, [], [], [], []
        self.bindirs, self.libdirs = ["bin"], ["lib"]
    def set_property(self, name, value):
        self.properties[name] = value
class Folders:
    root = None
class ConanFile:
    def __init__(self, with_tls=True, os_="Linux", compiler=("gcc", "12", "20")):
        self.options = types.SimpleNamespace(with_tls=with_tls)
        self.settings = types.SimpleNamespace(os=os_, compiler=Compiler(*compiler))
        self.recipe_folder = recipe_dir
        self.export_sources_folder = "<export_sources>"
        self.source_folder = "<source>"
        self.package_folder = "<package>"
        self.folders = Folders()
        self.cpp_info = CppInfo()
        self.info = types.SimpleNamespace(clear=lambda: record.__setitem__("info_cleared", True))
        self.requirements_made = []
        self.version = None
        self.ref = "mcp-loadtest"
    def requires(self, ref, **traits):
        self.requirements_made.append(ref)
class CMakeToolchain:
    def __init__(self, conanfile):
        self.cache_variables, self.variables = {}, {}
    def generate(self):
        record["toolchain"] = {**self.variables, **self.cache_variables}
class CMake:
    def __init__(self, conanfile):
        pass
    def configure(self):
        record.setdefault("cmake", []).append("configure")
    def build(self):
        record.setdefault("cmake", []).append("build")
    def install(self):
        record.setdefault("cmake", []).append("install")
def check_min_cppstd(conanfile, cppstd, gnu_extensions=False):
    record["min_cppstd"] = int(cppstd)
def copy(conanfile, pattern, src, dst, **kwargs):
    record.setdefault("copies", []).append((pattern, os.path.normpath(src), dst))
def rmdir(conanfile, path):
    record.setdefault("rmdirs", []).append(path)
def load(conanfile, path, **kwargs):
    with open(path) as f:
        return f.read()
stubs = {
    "conan": {"ConanFile": ConanFile},
    "conan.errors": {"ConanInvalidConfiguration": ConanInvalidConfiguration},
    "conan.tools": {}, "conan.tools.build": {"check_min_cppstd": check_min_cppstd, "can_run": lambda c: True},
    "conan.tools.cmake": {"CMake": CMake, "CMakeDeps": lambda c: types.SimpleNamespace(generate=lambda: None),
                          "CMakeToolchain": CMakeToolchain,
                          "cmake_layout": lambda c, **kw: record.__setitem__("cmake_layout", kw)},
    "conan.tools.files": {"copy": copy, "load": load, "rmdir": rmdir, "rm": lambda *a, **k: None},
    "conan.tools.scm": {"Version": Version},
}
for name, attributes in stubs.items():
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module
recipe_path = os.path.join(recipe_dir, "conanfile.py")
namespace = {"__file__": recipe_path, "__name__": "conanfile"}
exec(compile(read("packaging/conan/conanfile.py"), recipe_path, "exec"), namespace)
recipes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, ConanFile) and v is not ConanFile]
check(len(recipes) == 1, "conanfile.py: not exactly one ConanFile class")
Recipe = recipes[0]

check(Recipe.name == "mcp-loadtest", f"conanfile.py: name is {Recipe.name!r}")
check(Recipe.package_type == "header-library", "conanfile.py: package_type is not header-library")
check(Recipe.license == "MIT", "conanfile.py: license is not MIT")
check(Recipe.options == {"with_tls": [True, False]}, f"conanfile.py: options are {Recipe.options}")
check(Recipe.default_options.get("with_tls") is True, "conanfile.py: with_tls is not True by default")
check(("tls" in manifest.get("default-features", [])) == Recipe.default_options.get("with_tls"),
      "vcpkg's default features and the recipe's default with_tls disagree about TLS")

r = Recipe()
r.set_version()
check(r.version == project_version, f"conanfile.py: set_version() gives {r.version}, CMakeLists.txt says {project_version}")
r.export_sources()
exported = [c[0] for c in record.get("copies", []) if c[1] == root]
check(exported and len(exported) == len(record["copies"]),
      "conanfile.py: export_sources() does not copy from the checkout (two folders up)")
r.layout()
check(os.path.normpath(os.path.join(recipe_dir, r.folders.root or ".")) == root,
      "conanfile.py: layout() does not set folders.root to the checkout")
r.package_id()
check(record.get("info_cleared"), "conanfile.py: package_id() does not clear the info (header-only)")
r.validate()
check(record.get("min_cppstd") == 20, "conanfile.py: validate() does not require C++20")
# The platforms: the port's "supports" and the recipe's validate() accept the same systems,
# Linux and Windows (the OS backends, detail/os/), and not macOS (no backend yet).
supports = manifest.get("supports", "")
def vcpkg_supports(identifiers):
    """vcpkg's platform expression (identifiers, !, &, ',', |, parentheses) on one platform."""
    tokens = re.findall(r"[a-z0-9-]+|[!&|(),]", supports)
    check("".join(tokens) == re.sub(r"\s", "", supports), f"vcpkg.json: supports {supports!r} does not parse")
    python = " ".join({"!": "not", "&": "and", ",": "and", "|": "or"}.get(t, t) if not t[0].isalnum()
                      else str(t in identifiers) for t in tokens)
    return eval(python) if python else True
platforms = {  # Conan's settings.os: vcpkg's identifiers that are true there
    "Linux": {"linux"}, "Windows": {"windows"}, "Macos": {"osx"}, "FreeBSD": {"freebsd"},
    "Android": {"android"}, "WindowsStore": {"windows", "uwp"}, "iOS": {"ios"},
}
for os_name, identifiers in platforms.items():
    try:
        Recipe(os_=os_name).validate()
        recipe_accepts, message = True, ""
    except ConanInvalidConfiguration as e:
        recipe_accepts, message = False, str(e)
        check(os_name in message, f"conanfile.py: validate() refuses {os_name} without naming it: {message!r}")
    port_accepts = vcpkg_supports(identifiers)
    check(recipe_accepts == port_accepts,
          f"{os_name}: the recipe's validate() {'accepts' if recipe_accepts else 'refuses'} it, the port's "
          f"supports {supports!r} {'accepts' if port_accepts else 'refuses'} it")
    check(recipe_accepts == (os_name in ("Linux", "Windows")),
          f"{os_name}: {'accepted' if recipe_accepts else 'refused'}, but the library has OS backends for Linux and Windows only")
    print(f"{os_name:13} {'supported' if recipe_accepts else 'refused: ' + message}")

recipe_tls = {}
recipe_info = {}
for with_tls in (True, False):
    r = Recipe(with_tls=with_tls)
    r.requirements()
    names = sorted(ref.split("/")[0] for ref in r.requirements_made)
    expected = sorted(["asio", "nlohmann_json", "valijson"] + (["openssl"] if with_tls else []))
    check(names == expected, f"conanfile.py: with_tls={with_tls} requires {names}, expected {expected}")
    r.generate()
    recipe_tls[with_tls] = record.pop("toolchain")
    r.package_info()
    recipe_info[with_tls] = r.cpp_info
    check(("MCP_LOADTEST_WITH_TLS=1" in r.cpp_info.defines) == with_tls,
          f"conanfile.py: with_tls={with_tls}, but package_info() defines {r.cpp_info.defines}")
    check(any(q.startswith("openssl::") for q in r.cpp_info.requires) == with_tls,
          f"conanfile.py: with_tls={with_tls}, but package_info() requires {r.cpp_info.requires}")
r = Recipe()
r.build()
r.package()
check(record.get("cmake") == ["configure", "install"],
      f"conanfile.py: build() and package() run CMake steps {record.get('cmake')}, expected configure, then install")
check(any(c[0] == "LICENSE" and c[2].endswith("licenses") for c in record["copies"]),
      "conanfile.py: package() does not copy LICENSE to licenses/")
recipe_removes = [os.path.relpath(p, "<package>") for p in record.get("rmdirs", [])]
info = recipe_info[True]
check(info.bindirs == [] and info.libdirs == [], "conanfile.py: package_info() keeps bindirs/libdirs (header-only)")
check("pthread" in info.system_libs, "conanfile.py: package_info() does not link pthread on Linux")
# Windows: the libraries the CMake target links there (CMakeLists.txt), and Meson's.
windows_libs = re.search(r"set\(MCP_LOADTEST_WINDOWS_LIBRARIES\s+([^)]*)\)", cmakelists)
windows_libs = windows_libs.group(1).split() if windows_libs else []
check(windows_libs, "CMakeLists.txt: no set(MCP_LOADTEST_WINDOWS_LIBRARIES ...)")
r = Recipe(os_="Windows")
r.package_info()
check(sorted(r.cpp_info.system_libs) == sorted(windows_libs),
      f"conanfile.py: on Windows package_info() links {r.cpp_info.system_libs}, the CMake target {windows_libs}")
check("-Wa,-mbig-obj" in r.cpp_info.cxxflags and "-Wa,-mbig-obj" in cmakelists,
      "the recipe's package_info() and the CMake target do not both add -Wa,-mbig-obj for MinGW-w64")
meson_windows = re.search(r"^windows_libs = .*$", read("meson.build"), re.M)
check(meson_windows and sorted(re.findall(r"'-l(\w+)'", meson_windows.group(0))) == sorted(windows_libs),
      f"meson.build: windows_libs is not {windows_libs}")
check("-fcoroutines" in info.cxxflags, "conanfile.py: package_info() does not add -fcoroutines for GCC")
cmake_file_name = info.properties.get("cmake_file_name")
cmake_target_name = info.properties.get("cmake_target_name")
check(info.properties.get("pkg_config_name") == "mcp-loadtest", "conanfile.py: pkg_config_name is not mcp-loadtest")

# ---- the two agree, and match CMakeLists.txt and the test_package ----
def cmake_bool(value):
    return {"ON": True, "OFF": False, "TRUE": True, "FALSE": False, "1": True, "0": False}[str(value).upper()]
# The options that do not depend on with_tls.
recipe_common = {k: v for k, v in recipe_tls[True].items() if k in recipe_tls[False] and recipe_tls[False][k] == v}
port_common = {k: cmake_bool(v) for k, v in port_options.items()}
check(port_common == recipe_common,
      f"the port passes {port_common}, the recipe {recipe_common}: the CMake options drifted apart")
# TLS: the port's feature tls sets each of its variables ON or OFF; the recipe sets them from
# with_tls, and may leave a CMAKE_REQUIRE_FIND_PACKAGE_* unset rather than OFF.
def tls_variables(options):
    return {k: v for k, v in options.items()
            if k not in recipe_common and not (v is False and k.startswith("CMAKE_REQUIRE_FIND_PACKAGE_"))}
for with_tls in (True, False):
    port_tls = tls_variables({variable: with_tls for variable in feature_map.get("tls", [])})
    check(port_tls == tls_variables(recipe_tls[with_tls]),
          f"TLS {'on' if with_tls else 'off'}: the port's feature tls sets {port_tls}, "
          f"the recipe {tls_variables(recipe_tls[with_tls])}")
for name in list(port_common) + ["MCP_LOADTEST_TLS"]:
    check(name in cmake_options, f"{name} is passed to CMake by the port or the recipe, but CMakeLists.txt has no such option()")
check(cmake_file_name == package_name,
      f"the recipe's cmake_file_name {cmake_file_name!r} is not the port's PACKAGE_NAME {package_name!r}")
check(cmake_target_name == "mcp_loadtest::mcp_loadtest", f"conanfile.py: cmake_target_name is {cmake_target_name!r}")
check(re.search(rf"find_package\({re.escape(package_name or '')} CONFIG REQUIRED\)", usage),
      f"usage: no find_package({package_name} CONFIG REQUIRED)")
check(f"target_link_libraries(main PRIVATE {cmake_target_name})" in usage,
      f"usage: no target_link_libraries(main PRIVATE {cmake_target_name})")
test_cmake = read("packaging/conan/test_package/CMakeLists.txt")
check(re.search(rf"find_package\({re.escape(cmake_file_name or '')} REQUIRED CONFIG\)", test_cmake),
      f"test_package/CMakeLists.txt does not find_package({cmake_file_name} REQUIRED CONFIG)")
check(cmake_target_name and cmake_target_name in test_cmake, f"test_package/CMakeLists.txt does not link {cmake_target_name}")

if problems:
    print("\n".join("check-packaging: " + p for p in problems), file=sys.stderr)
    sys.exit(1)

def cmake_args(options):
    return [f"-D{k}={'ON' if v is True else 'OFF' if v is False else v}" for k, v in options.items()]
def bash_array(name, words):
    return f"{name}=({' '.join(shlex.quote(w) for w in words)})\n"
with open(out, "w") as f:
    f.write(bash_array("port_options", [f"-D{k}={v}" for k, v in port_options.items()]))
    f.write(bash_array("port_tls_on", [f"-D{v}=ON" for v in feature_map["tls"]]))
    f.write(bash_array("recipe_tls_on", cmake_args(recipe_tls[True])))
    f.write(bash_array("recipe_tls_off", cmake_args(recipe_tls[False])))
    f.write(bash_array("exported_sources", exported))
    f.write(bash_array("recipe_removes", recipe_removes))
    f.write(bash_array("recipe_gcc_flags", recipe_info[True].cxxflags))
    f.write(f"package_name={shlex.quote(package_name)}\nconfig_path={shlex.quote(config_path)}\n")
    f.write(f"target_name={shlex.quote(cmake_target_name)}\nversion={project_version}\n")
    f.write(bash_array("port_steps", port_steps))
    f.write(f"port_fixes_pkgconfig={int(port_fixes_pkgconfig)}\n")
print("port options:  ", " ".join(f"-D{k}={v}" for k, v in port_options.items()), "+ tls:", feature_map["tls"])
print("recipe options:", " ".join(cmake_args(recipe_tls[True])), "| with_tls=False:", " ".join(cmake_args(recipe_tls[False])))
PY
  cat "$work/options.sh"
}

# --- helpers -------------------------------------------------------------------------

# A CMake config package for standalone Asio shaped like vcpkg's and Conan's: an INTERFACE
# IMPORTED asio::asio. It says when it is loaded, so a check can tell it was used.
make_fake_asio() {
  mkdir -p "$fake_asio/share/asio"
  cat >"$fake_asio/share/asio/asio-config.cmake" <<'EOF'
message(STATUS "check-packaging: asio::asio from the asio config package")
if(NOT TARGET asio::asio)
  find_package(Threads REQUIRED)
  add_library(asio::asio INTERFACE IMPORTED)
  set_target_properties(asio::asio PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "/usr/include"
    INTERFACE_COMPILE_DEFINITIONS "ASIO_STANDALONE"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
EOF
}

install_library() {  # <source> <prefix> [cmake args]: configure, build and install, as the port and the recipe do
  local source=$1 prefix=$2; shift 2
  cmake -S "$source" -B "$prefix.build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_PREFIX_PATH="$fake_asio" "$@"
  grep -qx "asio_DIR:PATH=$fake_asio/share/asio" "$prefix.build/CMakeCache.txt" ||
    fail "the library's configure did not take asio::asio from the config package"
  cmake --build "$prefix.build"
  cmake --install "$prefix.build"
}

check_tls_recorded() {  # <prefix> <ON|OFF>: what the installed config says about TLS
  local config
  config=$(find "$1" -name "${package_name}Config.cmake" | head -1)
  [[ -n $config ]] || fail "no ${package_name}Config.cmake installed"
  grep -qx "set(MCP_LOADTEST_TLS_ENABLED $2)" "$config" ||
    fail "$config does not record TLS $2: $(grep MCP_LOADTEST_TLS_ENABLED "$config" | head -1)"
}

installed_files() {  # <prefix>: every installed file, relative
  (cd "$1" && find . -type f -o -type l | sed 's,^\./,,' | sort)
}

no_absolute_paths() {  # <prefix>: vcpkg refuses packages that name their build or install location
  local hits
  hits=$(grep -rl -e "$work" -e "$root" "$1" || true)
  [[ -z $hits ]] || fail "installed files name the build or source location: $hits"
}

test_package() {  # <build dir> <expected TLS on|off> <prefix path>: build and run the test_package
  local build=$1 tls=$2 prefix_path=$3 output
  cmake -S "$recipe/test_package" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O0 \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_PREFIX_PATH="$prefix_path" | tee "$build.configure.log"
  cmake --build "$build"
  output=$("$build/test_package")
  echo "$output"
  [[ $output == "mcp-loadtest $version: TLS $tls,"* ]] || fail "test_package printed '$output', expected TLS $tls"
  local link_line  # the consumer's link command (Ninja or Makefiles)
  link_line=$(cat "$build/build.ninja" "$build/CMakeFiles/test_package.dir/link.txt" 2>/dev/null | grep -E 'libssl|-lssl' || true)
  if [[ $tls == off ]]; then
    ! grep -q MCP_LOADTEST_WITH_TLS "$build/compile_commands.json" || fail "MCP_LOADTEST_WITH_TLS is defined for the consumer"
    [[ -z $link_line ]] || fail "the consumer links OpenSSL"
  else
    grep -q MCP_LOADTEST_WITH_TLS=1 "$build/compile_commands.json" || fail "MCP_LOADTEST_WITH_TLS is not defined for the consumer"
    [[ -n $link_line ]] || fail "the consumer does not link OpenSSL"
  fi
}

# --- checks ----------------------------------------------------------------------------

check_vcpkg_install() {
  local prefix=$work/vcpkg package=$work/vcpkg-package step words
  # vcpkg_cmake_configure of the checkout (the overlay port), default features (tls).
  install_library "$root" "$prefix" "${port_options[@]}" "${port_tls_on[@]}"
  installed_files "$prefix"
  for f in session.hpp run.hpp version.hpp; do
    [[ -f $prefix/include/mcp_loadtest/$f ]] || fail "no include/mcp_loadtest/$f"
  done
  for f in "${package_name}Config.cmake" "${package_name}ConfigVersion.cmake" "${package_name}Targets.cmake"; do
    [[ -f $prefix/$config_path/$f ]] || fail "no $f in $config_path, the portfile's CONFIG_PATH"
  done
  no_absolute_paths "$prefix"
  check_tls_recorded "$prefix" ON
  # What the recipe adds for GCC is what the CMake target adds.
  for flag in "${recipe_gcc_flags[@]}"; do
    grep -q -- "$flag" "$prefix/$config_path/${package_name}Targets.cmake" ||
      fail "the recipe adds $flag for GCC, the CMake target does not"
  done

  # The portfile's steps on the installed files, then what vcpkg's post-build checks refuse.
  cp -r "$prefix" "$package"
  for step in "${port_steps[@]}"; do
    read -ra words <<<"$step"
    case ${words[0]} in
      FIXUP)  # vcpkg_cmake_config_fixup: CONFIG_PATH's files to share/<PACKAGE_NAME>
        mkdir -p "$package/share/$package_name.fixup"
        mv "$package/$config_path"/* "$package/share/$package_name.fixup/"
        rm -rf "${package:?}/$config_path"
        mkdir -p "$package/share/$package_name"
        mv "$package/share/$package_name.fixup"/* "$package/share/$package_name/"
        rmdir "$package/share/$package_name.fixup" ;;
      MAKE_DIRECTORY) for d in "${words[@]:1}"; do mkdir -p "$package/$d"; done ;;
      RENAME) [[ -e $package/${words[1]} ]] || fail "the portfile renames ${words[1]}, which is not installed"
              mv "$package/${words[1]}" "$package/${words[2]}" ;;
      REMOVE_RECURSE|REMOVE) for d in "${words[@]:1}"; do rm -rf "${package:?}/$d"; done ;;
    esac
  done
  echo "after the portfile's steps:"
  installed_files "$package"
  [[ -f $package/share/$package_name/${package_name}Config.cmake ]] || fail "no share/$package_name/${package_name}Config.cmake after the fixup"
  local unexpected
  unexpected=$(installed_files "$package" |
               grep -v -e '^include/mcp_loadtest/' -e "^share/$package_name/[^/]*$" -e "^share/$package_name/parts/[^/]*\.cpp$" \
                 -e '^\(lib\|share\)/pkgconfig/[^/]*\.pc$' || true)
  [[ -z $unexpected ]] || fail "files a header-only port should not install (bin/, lib/, ...): $unexpected"
  local pc
  while read -r pc; do
    ((port_fixes_pkgconfig)) || fail "$pc is installed, but the portfile does not call vcpkg_fixup_pkgconfig()"
    if [[ $pc == share/pkgconfig/* ]] && grep -Eq '^Libs(\.private)?:[[:space:]]*[^[:space:]]' "$package/$pc"; then
      fail "$pc has a Libs: line: vcpkg accepts it in lib/pkgconfig only"
    fi
  done < <(installed_files "$package" | grep '\.pc$' || true)
  [[ -z $(find "$package" -mindepth 1 -type d -empty) ]] || fail "empty directories: $(find "$package" -mindepth 1 -type d -empty)"
}

conan_package() {  # <prefix> <recipe options...>: the exported files alone, configured and installed, then package()
  local prefix=$1 source=$work/conan-export; shift
  if [[ ! -d $source ]]; then  # export_sources(): Conan's copy() matches each pattern against relative paths
    python3 - "$root" "$source" "${exported_sources[@]}" <<'PY'
import fnmatch, os, shutil, sys
src, dst, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
for top, dirs, files in os.walk(src):
    for name in files:
        rel = os.path.relpath(os.path.join(top, name), src)
        if any(fnmatch.fnmatch(rel.lower(), p.lower()) for p in patterns):
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(top, name), os.path.join(dst, rel))
PY
  fi
  install_library "$source" "$prefix" "$@"
  installed_files "$prefix"
  no_absolute_paths "$prefix"
  # package(): LICENSE to licenses/, and the recipe's rmdir()s; only headers may remain.
  cp -r "$prefix" "$prefix.package"
  mkdir "$prefix.package/licenses" && cp "$source/LICENSE" "$prefix.package/licenses/"
  for d in "${recipe_removes[@]}"; do rm -rf "${prefix:?}.package/$d"; done
  local left
  left=$(installed_files "$prefix.package" | grep -v -e '^include/mcp_loadtest/' -e '^licenses/LICENSE$' || true)
  [[ -z $left ]] || fail "package() leaves files package_info() does not describe: $left"
  diff -r "$root/include/mcp_loadtest" "$prefix.package/include/mcp_loadtest" || fail "the packaged headers differ from the checkout's"
}

check_conan_tls() {
  conan_package "$work/conan-tls" "${recipe_tls_on[@]}"
  check_tls_recorded "$work/conan-tls" ON
}

check_conan_no_tls() {
  conan_package "$work/conan-notls" "${recipe_tls_off[@]}"
  check_tls_recorded "$work/conan-notls" OFF
}

check_tls_needs_openssl() {  # TLS requested, OpenSSL not found: the configure must fail, not drop TLS
  mkdir -p "$work/no-openssl"
  cat >"$work/no-openssl/FindOpenSSL.cmake" <<'EOF'
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenSSL REQUIRED_VARS OPENSSL_NOT_INSTALLED_FOR_THIS_CHECK)
EOF
  configure_without_openssl port "${port_options[@]}" "${port_tls_on[@]}"
  configure_without_openssl recipe "${recipe_tls_on[@]}"
}

configure_without_openssl() {  # <name> <cmake args>
  local name=$1; shift
  if cmake -S "$root" -B "$work/no-openssl.$name" "${generator[@]}" -DCMAKE_PREFIX_PATH="$fake_asio" \
           -DCMAKE_MODULE_PATH="$work/no-openssl" "$@" >"$work/no-openssl.$name.log" 2>&1; then
    cat "$work/no-openssl.$name.log"
    fail "$name: with $* and no OpenSSL, the configure succeeded (the package would silently lack TLS)"
  fi
  grep -q "OpenSSL" "$work/no-openssl.$name.log" ||
    { cat "$work/no-openssl.$name.log"; fail "$name: the configure failed, but not over OpenSSL"; }
  echo "$name: the configure failed over OpenSSL, as it should"
}

check_consumer_asio_config() {
  local build=$work/tp-asio-config
  test_package "$build" on "$work/vcpkg;$fake_asio"
  grep -q "asio::asio from the asio config package" "$build.configure.log" || fail "the asio config package was not loaded"
  grep -qx "asio_DIR:PATH=$fake_asio/share/asio" "$build/CMakeCache.txt" || fail "asio_DIR is not the config package"
  ! grep -q "^MCP_LOADTEST_ASIO_INCLUDE_DIR:" "$build/CMakeCache.txt" || fail "the config fell back to finding asio.hpp"
  ! grep -q ASIO_NO_DEPRECATED "$build/compile_commands.json" || fail "the consumer got the header fallback's definitions"
}

check_consumer_asio_headers() {
  local build=$work/tp-asio-headers
  [[ -f /usr/include/asio.hpp ]] || fail "no /usr/include/asio.hpp (apt-get install libasio-dev)"
  test_package "$build" on "$work/vcpkg"
  grep -q "^MCP_LOADTEST_ASIO_INCLUDE_DIR:PATH=/usr/include$" "$build/CMakeCache.txt" ||
    fail "the config did not find Asio's bare headers: $(grep -E '^(asio_DIR|MCP_LOADTEST_ASIO)' "$build/CMakeCache.txt")"
  grep -q ASIO_STANDALONE "$build/compile_commands.json" || fail "ASIO_STANDALONE is not defined for the consumer"
}

check_consumer_no_tls() {
  test_package "$work/tp-notls" off "$work/conan-notls;$fake_asio"
}

# --- running them ---------------------------------------------------------------------

failed=()
step() {  # <label> <function>: one line; on failure, the end of its log
  local start=$SECONDS rc log=$work/logs/$2.log
  set +e
  (set -ex; "$2") >"$log" 2>&1
  rc=$?
  set -e
  if ((rc == 0)); then
    printf 'ok    %-48s %3d s\n' "$1" $((SECONDS - start))
  else
    printf 'FAIL  %-48s %3d s\n' "$1" $((SECONDS - start))
    grep '^check-packaging: ' "$log" | sed 's/^/      /' || true
    echo "---- $1: end of its log"
    tail -n 15 "$log"
    echo "----"
    failed+=("$1")
  fi
}

start=$SECONDS
step "port and recipe agree (options, names, versions)" read_packaging
if ((${#failed[@]})); then echo "packaging check FAILED: ${failed[*]}"; exit 1; fi
# shellcheck source=/dev/null
source "$work/options.sh"
make_fake_asio
step "vcpkg install: layout the portfile expects" check_vcpkg_install
step "Conan package, with_tls=True" check_conan_tls
step "Conan package, with_tls=False" check_conan_no_tls
step "TLS requested, no OpenSSL: configure fails" check_tls_needs_openssl
# The three test_package builds are independent compiles: two at a time (lines in this order).
background_step() {  # <index> <label> <function>: step() in the background; its line and verdict to files
  (step "$2" "$3" >"$work/logs/step.$1.out"; ((${#failed[@]} == 0)) || echo "$2" >"$work/logs/step.$1.failed") &
}
background_step 1 "test_package: Asio as asio::asio (config package)" check_consumer_asio_config
background_step 2 "test_package: Asio from bare headers" check_consumer_asio_headers
wait -n || true
background_step 3 "test_package: with_tls=False, no TLS" check_consumer_no_tls
wait
for i in 1 2 3; do
  cat "$work/logs/step.$i.out"
  [[ ! -e $work/logs/step.$i.failed ]] || failed+=("$(cat "$work/logs/step.$i.failed")")
done
if ((${#failed[@]})); then
  printf -v list '%s; ' "${failed[@]}"
  echo "packaging check FAILED: ${list%; }"
  exit 1
fi
echo "all packaging checks passed ($((SECONDS - start)) s)"
