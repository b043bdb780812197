#!/usr/bin/env bash
# Consumes the library each way README.md ("Using it in your project") lists.
# Every way builds and runs the same small consumer, tests/consumers/consumer_test.cpp:
# one tools/call to the echo fixture, and a compile-time check that
# MCP_LOADTEST_WITH_TLS is defined exactly when that way expects TLS.
#
#   find_package      CMake: the installed package (TLS on)
#   add_subdirectory  CMake: the checkout added to a separate project
#   FetchContent      CMake: a tarball of the checkout through a file:// URL
#   pkg-config, separate  g++ $(pkg-config ...) against the installed .pc (TLS on, OpenSSL linked),
#                     with -DMCP_LOADTEST_SEPARATE_COMPILATION and one file of its own holding
#                     <mcp_loadtest/impl/src.hpp> (the whole library): docs/compile-time.md's recipe
#   Meson subproject  dependency('mcp-loadtest') through subprojects/mcp-loadtest.wrap
#   TLS off           installed with -DMCP_LOADTEST_TLS=OFF: find_package, and the .pc
#   examples/         standalone against the installed package (the quickstart only)
#   find_package, separate   the installed package's mcp_loadtest::separate (docs/compile-time.md)
#   Clang, libstdc++  find_package with clang++-16 and GCC's standard library: the one build
#                     where Asio 1.22 needs telling that coroutines exist (detail/asio_compat.hpp);
#                     the suite runs with Clang and libc++ (the tsan preset)
#   Meson, separate   the subproject with -Dmcp-loadtest:separate_compilation=true (the two parts)
#   Windows, find_package  MinGW-w64 cross build, as a Windows user would: the library configured
#                     with the MinGW toolchain and installed (TLS off: no OpenSSL for MinGW here),
#                     then find_package/ built against it and run under Wine. No Python there: the
#                     consumer starts the C++ fixture server (fixtures/native), built with it. The
#                     toolchain file (cmake/toolchains/) adds Winsock and psapi to every link for the
#                     suite; the consumer's drops that, so it links only what the installed target
#                     names, Winsock among them (the consumer includes http.hpp).
#                     Built at -O1 (MinGW's as and ld are slow on -O0 objects); still one of the
#                     slowest ways, so it starts first.
#
# One line per way; a failure names the way and shows the end of its log. Works
# in a temporary directory removed on exit; builds at -O0 (the Windows way at -O1),
# CONSUMER_JOBS (2) ways at a time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
consumers=$root/tests/consumers
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/logs"
jobs_max=${CONSUMER_JOBS:-2}
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O0)
python=$(command -v python3)
echo_server=$root/fixtures/echo_server.py

# --- steps -------------------------------------------------------------------

install_library() {  # <prefix> [cmake args]: configure and install (nothing to compile)
  local prefix=$1; shift
  cmake -S "$root" -B "$prefix.build" "${cmake_args[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DMCP_LOADTEST_BUILD_TESTS=OFF -DMCP_LOADTEST_BUILD_EXAMPLES=OFF -DMCP_LOADTEST_BUILD_BENCH=OFF "$@"
  cmake --install "$prefix.build"
  [[ ! -e $prefix/bin ]] || { echo "an executable was installed: $(ls "$prefix/bin")"; return 1; }
  [[ -f $prefix/share/pkgconfig/mcp-loadtest.pc ]] || { echo "no share/pkgconfig/mcp-loadtest.pc installed"; return 1; }
}

cmake_consumer() {  # <build dir> <source dir> [cmake args]: configure, build, run through CTest
  local build=$1 source=$2; shift 2
  cmake -S "$source" -B "$build" "${cmake_args[@]}" "$@"
  cmake --build "$build"
  ctest --test-dir "$build" --output-on-failure
}

library_is_a_guest() {  # <build dir>: not top level, the library adds no tests, examples, benchmarks or install rules
  local build=$1 option
  for option in BUILD_TESTS BUILD_EXAMPLES BUILD_BENCH INSTALL; do
    grep -qx "MCP_LOADTEST_$option:BOOL=OFF" "$build/CMakeCache.txt" ||
      { echo "MCP_LOADTEST_$option is not OFF when mcp-loadtest is not the top-level project"; return 1; }
  done
  [[ $(ctest --test-dir "$build" -N) == *"Total Tests: 1"* ]] ||
    { echo "tests besides the consumer's were registered:"; ctest --test-dir "$build" -N; return 1; }
}

pc() {  # <dir> <pkg-config args>: pkg-config for the mcp-loadtest.pc in <dir>
  local dir=$1; shift
  PKG_CONFIG_PATH=$dir pkg-config "$@" mcp-loadtest
}

pc_summary() (  # <dir>: the .pc's flags and requirements, include paths left out
  set +x
  for flag in $(pc "$1" --cflags) $(pc "$1" --libs); do [[ $flag == -I* ]] || printf '%s ' "$flag"; done
  printf '| %s\n' "$(pc "$1" --print-requires | tr '\n' ' ')"
)

# --- preparation ---------------------------------------------------------------

prepare_install() {
  install_library "$work/prefix"
}

prepare_tarball() {  # the checkout's files (tracked and new, not ignored), as a release archive holds them
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z --cached --others --exclude-standard |
      tar -C "$root" --null -T - --ignore-failed-read --transform 's,^,mcp-loadtest/,' -czf "$work/mcp-loadtest.tar.gz"
  else
    tar -C "$root/.." --exclude=.git --exclude=build --exclude=node_modules --exclude=__pycache__ \
        --transform "s,^$(basename "$root"),mcp-loadtest," -czf "$work/mcp-loadtest.tar.gz" "$(basename "$root")"
  fi
}

# --- the ways --------------------------------------------------------------------

way_find_package() {
  cmake_consumer "$work/find_package" "$consumers/find_package" -DCMAKE_PREFIX_PATH="$work/prefix"
}

way_find_package_separate() {  # the installed package's mcp_loadtest::separate, built from its installed source
  cmake_consumer "$work/find_package_separate" "$consumers/find_package" -DCMAKE_PREFIX_PATH="$work/prefix" \
                 -DMCP_LOADTEST_CONSUMER_TARGET=mcp_loadtest::separate
  grep -q MCP_LOADTEST_SEPARATE_COMPILATION "$work/find_package_separate/build.ninja" ||
    { echo "the consumer was not compiled with MCP_LOADTEST_SEPARATE_COMPILATION"; return 1; }
}

way_clang_libstdcxx() {
  command -v clang++-16 >/dev/null || { echo "clang++-16 not found; .ci/install-deps.sh installs it"; return 1; }
  cmake_consumer "$work/clang_libstdcxx" "$consumers/find_package" -DCMAKE_PREFIX_PATH="$work/prefix" \
                 -DCMAKE_CXX_COMPILER=clang++-16
  grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$work/clang_libstdcxx/CMakeCache.txt" ||
    { echo "the consumer was not built with Clang"; return 1; }
}

way_add_subdirectory() {
  cmake_consumer "$work/add_subdirectory" "$consumers/add_subdirectory" -DMCP_LOADTEST_SOURCE_DIR="$root"
  library_is_a_guest "$work/add_subdirectory"
}

way_fetchcontent() {
  cmake_consumer "$work/fetchcontent" "$consumers/fetchcontent" -DMCP_LOADTEST_URL="file://$work/mcp-loadtest.tar.gz"
  library_is_a_guest "$work/fetchcontent"
}

way_pkg_config() {  # g++ with the .pc's flags; and docs/compile-time.md's "anything else" for separate
  # compilation: the same flags, the define, and one file of its own holding impl/src.hpp. (Header-only
  # with these flags is the same compile as consumer_test.cpp's here without the define; the CMake and
  # Meson ways build it header-only.)
  local dir=$work/prefix/share/pkgconfig cflags libs
  pc "$dir" --validate
  cflags="$(pc "$dir" --cflags) -DMCP_LOADTEST_SEPARATE_COMPILATION"
  libs=$(pc "$dir" --libs)
  mkdir "$work/pkg-config"
  printf '#include <mcp_loadtest/impl/src.hpp>\n' >"$work/pkg-config/mcp_loadtest.cpp"
  # shellcheck disable=SC2086  # the flags are words
  g++ -std=c++20 -O0 $cflags -c "$work/pkg-config/mcp_loadtest.cpp" -o "$work/pkg-config/mcp_loadtest.o"
  # shellcheck disable=SC2086
  g++ -std=c++20 -O0 $cflags -DEXPECT_TLS=1 -DPYTHON="\"$python\"" -DECHO_SERVER="\"$echo_server\"" \
      "$consumers/consumer_test.cpp" "$work/pkg-config/mcp_loadtest.o" $libs -o "$work/pkg-config/consumer_test"
  "$work/pkg-config/consumer_test"
  # The flags suit Clang too (no -fcoroutines, no unknown warning option).
  if command -v clang++ >/dev/null; then
    # shellcheck disable=SC2086
    printf 'int main() {}\n' | clang++ -std=c++20 -Werror $cflags -x c++ - $libs -o "$work/pkg-config/clang_flags"
  fi
}

way_meson_subproject() {
  # A copy: Meson would otherwise unpack the subproject inside the checkout.
  local source=$work/meson-source/meson_subproject meson_pc cmake_pc
  mkdir "$work/meson-source"
  cp -r "$consumers/meson_subproject" "$consumers/consumer_test.cpp" "$work/meson-source/"
  rm -rf "$source/subprojects/mcp-loadtest"
  mkdir "$source/subprojects/mcp-loadtest"
  tar -C "$source/subprojects/mcp-loadtest" --strip-components=1 -xzf "$work/mcp-loadtest.tar.gz"
  meson setup "$work/meson" "$source" --buildtype=plain --force-fallback-for=mcp-loadtest
  meson test -C "$work/meson" --print-errorlogs
  # Meson's pkg-config file says what CMake's says (include paths aside).
  meson_pc=$(pc_summary "$work/meson/meson-private")
  cmake_pc=$(pc_summary "$work/prefix/share/pkgconfig")
  [ "$meson_pc" = "$cmake_pc" ] ||
    { printf "Meson's and CMake's mcp-loadtest.pc differ:\n  meson: %s\n  cmake: %s\n" "$meson_pc" "$cmake_pc"; return 1; }
}

way_meson_separate() {  # the subproject with -Dmcp-loadtest:separate_compilation=true
  local source=$work/meson-separate-source/meson_subproject
  mkdir "$work/meson-separate-source"
  cp -r "$consumers/meson_subproject" "$consumers/consumer_test.cpp" "$work/meson-separate-source/"
  rm -rf "$source/subprojects/mcp-loadtest"
  mkdir "$source/subprojects/mcp-loadtest"
  tar -C "$source/subprojects/mcp-loadtest" --strip-components=1 -xzf "$work/mcp-loadtest.tar.gz"
  meson setup "$work/meson-separate" "$source" --buildtype=plain --force-fallback-for=mcp-loadtest \
        -Dmcp-loadtest:separate_compilation=true
  meson test -C "$work/meson-separate" --print-errorlogs
  grep -q 'libmcp_loadtest.a' "$work/meson-separate/build.ninja" ||
    { echo "Meson did not build the separately compiled library"; return 1; }
  grep -q 'src/parts/analysis.cpp' "$work/meson-separate/build.ninja" ||
    { echo "Meson did not build the library from its parts (src/parts/)"; return 1; }
}

way_tls_off() {
  local dir=$work/prefix-notls/share/pkgconfig
  install_library "$work/prefix-notls" -DMCP_LOADTEST_TLS=OFF
  [[ $(pc "$dir" --cflags) != *MCP_LOADTEST_WITH_TLS* ]] || { echo "the TLS-off .pc defines MCP_LOADTEST_WITH_TLS"; return 1; }
  [[ $(pc "$dir" --print-requires) != *openssl* ]] || { echo "the TLS-off .pc requires openssl"; return 1; }
  cmake_consumer "$work/tls_off" "$consumers/find_package" -DCMAKE_PREFIX_PATH="$work/prefix-notls" -DEXPECT_TLS=0
}

way_examples() {  # examples/CMakeLists.txt's standalone mode; one example is enough to build
  cmake -S "$root/examples" -B "$work/examples" "${cmake_args[@]}" -DCMAKE_PREFIX_PATH="$work/prefix"
  cmake --build "$work/examples" --target example_quickstart
  "$work/examples/example_quickstart"
}

way_windows_find_package() {  # MinGW-w64 cross build of find_package/, run under Wine
  local prefix=$work/prefix-windows build=$work/windows_find_package tool
  for tool in x86_64-w64-mingw32-g++-posix wine; do
    command -v "$tool" >/dev/null || { echo "$tool not found; .ci/install-deps.sh installs it"; return 1; }
  done
  # The library, configured for Windows and installed.
  cmake -S "$root" -B "$prefix.build" "${cmake_args[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/x86_64-w64-mingw32.cmake" -DMCP_LOADTEST_TLS=OFF \
        -DMCP_LOADTEST_BUILD_TESTS=OFF -DMCP_LOADTEST_BUILD_EXAMPLES=OFF -DMCP_LOADTEST_BUILD_BENCH=OFF
  cmake --install "$prefix.build"
  # The consumer's toolchain: the project's (MinGW-w64, the host's header-only dependencies,
  # Wine as the emulator) without the libraries it adds to every link.
  printf 'include("%s")\nunset(CMAKE_USER_MAKE_RULES_OVERRIDE_CXX)\n' \
         "$root/cmake/toolchains/x86_64-w64-mingw32.cmake" >"$work/mingw-consumer.cmake"
  # mcp-loadtest_DIR: the toolchain searches packages only under its find roots.
  # -O1, not -O0: MinGW's assembler and linker take longer over an -O0 object's sections than
  # the optimiser takes to remove them (this way alone: 106 s at -O0, 62 s at -O1).
  cmake_consumer "$build" "$consumers/find_package" -DCMAKE_TOOLCHAIN_FILE="$work/mingw-consumer.cmake" \
                 -Dmcp-loadtest_DIR="$prefix/share/mcp-loadtest/cmake" -DEXPECT_TLS=0 -DCMAKE_CXX_FLAGS=-O1
  [[ $(head -c 2 "$build/consumer_test.exe") == MZ ]] || { echo "consumer_test.exe is not a Windows program"; return 1; }
  ! grep -E '^CMAKE_CXX_STANDARD_LIBRARIES:.*(ws2_32|mswsock|psapi)' "$build/CMakeCache.txt" ||
    { echo "the toolchain's own link libraries were not dropped"; return 1; }
  grep -q 'ws2_32' "$build/build.ninja" || { echo "consumer_test was not linked with ws2_32 by the installed target"; return 1; }
}

# --- running them ------------------------------------------------------------------

running=0
run() {  # <label> <function>: in the background, at most $jobs_max at a time; prints one line
  if ((running >= jobs_max)); then wait -n || true; running=$((running - 1)); fi
  (
    set +e
    start=$SECONDS
    (set -ex; "$2") >"$work/logs/$2.log" 2>&1
    rc=$?
    if ((rc == 0)); then
      printf 'ok    %-18s %3d s\n' "$1" $((SECONDS - start))
    else
      printf 'FAIL  %-18s %3d s\n' "$1" $((SECONDS - start))
      echo "$1" >"$work/logs/$2.failed"
    fi
  ) &
  running=$((running + 1))
}

finish() {  # waits for every way; on failure, names them and shows the end of their logs
  wait
  running=0
  local failed=() f list
  for f in "$work"/logs/*.failed; do
    [[ -e $f ]] || continue
    failed+=("$(cat "$f")")
    echo "---- $(cat "$f"): end of its log"
    tail -n 40 "${f%.failed}.log"
  done
  if ((${#failed[@]})); then
    printf -v list '%s, ' "${failed[@]}"
    echo "consumer check FAILED: ${list%, }"
    exit 1
  fi
}

start=$SECONDS
run "install (CMake)" prepare_install
run "source tarball" prepare_tarball
finish
# Longest first.
run "Windows, find_package" way_windows_find_package
run "pkg-config, separate" way_pkg_config
run "Meson subproject" way_meson_subproject
run "examples/" way_examples
run "Meson, separate" way_meson_separate
run "find_package, separate" way_find_package_separate
run "TLS off" way_tls_off
run "Clang, libstdc++" way_clang_libstdcxx
run "find_package" way_find_package
run "add_subdirectory" way_add_subdirectory
run "FetchContent" way_fetchcontent
finish
echo "all consumer ways passed ($((SECONDS - start)) s)"
