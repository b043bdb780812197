#!/bin/sh
# Compile time of a test file, as a user pays it: ratios against a bare Asio +
# doctest file compiled in the same run (docs/benchmarks.md#compile-time).
#
#   bench/compile_time/compile_time.sh [runs=3] [header-only|separate|both]
#
# Each file is a whole test program's source, doctest's main() included (as in
# examples/quickstart.cpp). Each is compiled -c at -O0 (g++ -std=gnu++20, Debian's
# Asio, TLS on) `runs` times, alternating files so they share the machine's load; prints the median
# wall time, peak compiler RSS, object size and number of functions, and the
# ratio of each median to the baseline's, and to bare_asio_json.cpp's (the
# baseline plus nlohmann-json: what is left is the library's own cost).
# "separate" compiles the same files
# with MCP_LOADTEST_SEPARATE_COMPILATION (the library's code comes from
# src/mcp_loadtest.cpp, compiled once; its cost is printed apart).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-3}
modes=${2:-both}
[ "$modes" = both ] && modes="header-only separate"
cxx=${CXX:-g++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-std=gnu++20 -O0 -fcoroutines -Wno-mismatched-new-delete -DASIO_STANDALONE -DASIO_NO_DEPRECATED -DMCP_LOADTEST_WITH_TLS=1 -DDOCTEST_CONFIG_IMPLEMENT_WITH_MAIN -I$root/include"
command -v /usr/bin/time >/dev/null || { echo "compile_time.sh needs GNU time: apt-get install time" >&2; exit 2; }

measure() {  # file extra-flags tag run -> appends "seconds kib" to $out/tag.times
    /usr/bin/time -f '%e %M' -o "$out/$3.t" $cxx $flags $2 -c "$1" -o "$out/$3.o"
    cat "$out/$3.t" >> "$out/$3.times"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "compiler: $($cxx --version | head -1); $runs runs per file, median"
for mode in $modes; do
    extra=""
    [ "$mode" = separate ] && extra="-DMCP_LOADTEST_SEPARATE_COMPILATION"
    rm -f "$out"/*.times
    if [ "$mode" = separate ]; then
        /usr/bin/time -f '%e %M' -o "$out/lib.t" $cxx $flags $extra -c "$root/src/mcp_loadtest.cpp" -o "$out/lib.o"
        read -r s k < "$out/lib.t"
        printf 'separate compilation: src/mcp_loadtest.cpp, once: %.1f s, %d MB peak, object %.1f MB\n' \
            "$s" $((k / 1024)) "$(stat -c %s "$out/lib.o" | awk '{print $1/1048576}')"
    fi
    i=0
    while [ $i -lt "$runs" ]; do
        for f in bare_asio bare_asio_json one_case one_case_run; do
            fx=""; case $f in one_case*) fx=$extra ;; esac
            measure "$here/$f.cpp" "$fx" $f
        done
        i=$((i + 1))
    done
    base=$(cut -d' ' -f1 "$out/bare_asio.times" | median)
    base_json=$(cut -d' ' -f1 "$out/bare_asio_json.times" | median)
    echo "mode: $mode"
    printf '  %-14s %8s %8s %10s %10s %10s %10s\n' file seconds ratio "vs +json" "peak MB" "object MB" functions
    for f in bare_asio bare_asio_json one_case one_case_run; do
        s=$(cut -d' ' -f1 "$out/$f.times" | median)
        k=$(cut -d' ' -f2 "$out/$f.times" | median)
        size=$(stat -c %s "$out/$f.o")
        fns=$(nm --defined-only "$out/$f.o" | grep -c ' [TtWw] ' || true)
        printf '  %-14s %8.1f %7.2fx %9.2fx %10d %10.2f %10d\n' $f "$s" "$(echo "$s $base" | awk '{print $1/$2}')" \
            "$(echo "$s $base_json" | awk '{print $1/$2}')" $((${k%.*} / 1024)) "$(echo "$size" | awk '{print $1/1048576}')" "$fns"
    done
done
