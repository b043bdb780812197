#!/usr/bin/env bash
# Installs everything mcp-loadtest's build, tests and examples need on a bare
# Debian 12 machine: the compiler and build tools, the header-only
# dependencies, and the pinned third-party MCP servers for the interop tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

packages=(g++ cmake ninja-build meson pkg-config python3
          libasio-dev nlohmann-json3-dev doctest-dev catch2 libssl-dev openssl
          wrk  # wrk: the baseline of bench/bench_http.cpp
          clang-16 libclang-rt-16-dev)  # libFuzzer and the sanitizers for .ci/fuzz.sh
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: Debian packages ready: ${packages[*]}"

# Pinned by the package-lock.json files in tests/interop and tests/conformance
# (the official conformance suite, which brings its own Node 22).
npm ci --prefix "$root/tests/interop" --no-audit --no-fund --loglevel=error
npm ci --prefix "$root/tests/conformance" --no-audit --no-fund --loglevel=error
echo "install-deps: npm servers ready: $(ls "$root/tests/interop/node_modules/@modelcontextprotocol")"
