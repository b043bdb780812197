#!/usr/bin/env bash
# Consumes the library the ways users do: find_package() against an
# installed copy, and Meson. Each builds and runs the quickstart example.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== CMake: install, then find_package(mcp-loadtest) from a separate project"
cmake -S "$root" -B "$work/lib" -G Ninja -DMCP_LOADTEST_BUILD_TESTS=OFF -DMCP_LOADTEST_BUILD_EXAMPLES=OFF \
      -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --install "$work/lib" >/dev/null
test ! -e "$work/prefix/bin" || { echo "an executable was installed: $(ls "$work/prefix/bin")"; exit 1; }
cmake -S "$root/examples" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer"
ctest --test-dir "$work/consumer" --output-on-failure

echo "== Meson: the dependency object, building the same example"
meson setup "$work/meson" "$root" -Dexamples=true >/dev/null
meson compile -C "$work/meson"
meson test -C "$work/meson" --print-errorlogs
