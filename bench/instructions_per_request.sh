#!/bin/sh
# Instructions per request of the library's hot path, counted by callgrind.
#
#     bench/instructions_per_request.sh [BENCH_THROUGHPUT] [N1] [N2] [TOP]
#
# Runs `bench_throughput --count N` (one session, 64 calls in flight, exactly N
# tools/call requests against fast_echo_server; `co_await call_tool` in 64 user
# coroutines) and `--count N --run` (the same through mlt::run(): a closed load
# of 64 users, N iterations) under
# `valgrind --tool=callgrind` for N1 and for N2 requests, and prints the
# marginal cost (Ir(N2) - Ir(N1)) / (N2 - N1), which cancels start-up, the
# handshake and shutdown. Only the client process is counted (no
# --trace-children): the server runs natively. The same is done for the raw
# driver (`--count N --raw`) as the baseline, and for the floor under any
# `co_await` per call (`--count N --floor await|callback`, bench/awaitable_floor.hpp:
# the same completions, no I/O, awaited or as callbacks), then the TOP functions by
# marginal instructions per request, self and inclusive (callgrind_annotate on
# both runs, subtracted per function) of the path PROFILE names: run (default)
# or loop.
#
# Defaults: build/default/bench/bench_throughput, N1=20000, N2=120000, TOP=25.
# Set KEEP=dir to keep the callgrind output files. Prints figures; asserts nothing
# (exits non-zero only if a run fails).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/default/bench/bench_throughput}
n1=${2:-20000}
n2=${3:-120000}
top=${4:-25}

if [ "$n2" -le "$n1" ]; then
    echo "N2 ($n2) must be larger than N1 ($n1)" >&2
    exit 2
fi
. "$here/callgrind_setup.sh"
callgrind_setup "$bin" bench_throughput

# callgrind_run NAME N [--raw]: prints the total Ir of the client process.
callgrind_run() {
    name=$1
    n=$2
    shift 2
    file="$out/$name.$n.callgrind"
    if ! valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" --count "$n" "$@" \
        >"$out/$name.$n.log" 2>&1; then
        echo "callgrind run failed: $bin --count $n $*" >&2
        cat "$out/$name.$n.log" >&2
        exit 1
    fi
    callgrind_totals "$file"
}

profile=${PROFILE:-run}
case $profile in run | loop) ;; *) echo "PROFILE must be run or loop" >&2; exit 2 ;; esac

loop1=$(callgrind_run loop "$n1")
loop2=$(callgrind_run loop "$n2")
run1=$(callgrind_run run "$n1" --run)
run2=$(callgrind_run run "$n2" --run)
raw1=$(callgrind_run raw "$n1" --raw)
raw2=$(callgrind_run raw "$n2" --raw)
await1=$(callgrind_run await "$n1" --floor await)
await2=$(callgrind_run await "$n2" --floor await)
cb1=$(callgrind_run callback "$n1" --floor callback)
cb2=$(callgrind_run callback "$n2" --floor callback)

awk -v l1="$loop1" -v l2="$loop2" -v u1="$run1" -v u2="$run2" -v r1="$raw1" -v r2="$raw2" -v n1="$n1" -v n2="$n2" \
    -v a1="$await1" -v a2="$await2" -v c1="$cb1" -v c2="$cb2" 'BEGIN {
    loop = (l2 - l1) / (n2 - n1); run = (u2 - u1) / (n2 - n1); raw = (r2 - r1) / (n2 - n1);
    await = (a2 - a1) / (n2 - n1); cb = (c2 - c1) / (n2 - n1);
    printf "callgrind, client process only, 64 calls in flight, marginal over N = %d -> %d\n", n1, n2;
    printf "  run():      Ir %d -> %d   %7.0f instructions/request   (target <= 2500)   %.1fx raw\n", u1, u2, run, run / raw;
    printf "  loop:       Ir %d -> %d   %7.0f instructions/request   (co_await call_tool)  %.1fx raw\n", l1, l2, loop, loop / raw;
    printf "  raw driver: Ir %d -> %d   %7.0f instructions/request\n", r1, r2, raw;
    printf "  floor, no I/O (awaitable_floor.hpp): co_await %.0f, callbacks %.0f per call: co_await costs %.0f\n", await, cb, await - cb;
}'

# Per-function marginal cost: annotate both library runs, subtract, divide.
# callgrind_annotate lines look like "  72,361,395 (10.31%)  file:function [object]".
per_function() {
    mode=$1  # no | yes (inclusive)
    for n in "$n1" "$n2"; do
        callgrind_annotate --inclusive="$mode" --auto=no --threshold=100 "$out/$profile.$n.callgrind" \
            >"$out/annotate.$mode.$n.txt" 2>/dev/null
    done
    awk -v dn=$((n2 - n1)) -v mode="$mode" '
        FNR == 1 { table = 0 }
        # Only the function table: from the "file:function" header to the end.
        /file:function/ { table = 1; next }
        !table { next }
        /^ *[0-9][0-9,]* \( *[0-9.]+%\)  / {
            ir = $0; sub(/^ */, "", ir); sub(/ .*/, "", ir); gsub(/,/, "", ir); ir += 0;
            name = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\)  /, "", name);
            sub(/ \[[^]]*\]$/, "", name);            # the object file
            # Drop the source file. Inlined code is attributed to its header, so one
            # function shows up once per file: self costs add up; inclusive costs
            # overlap, so take the largest.
            i = index(name, ":"); name = substr(name, i + 1);
            if (mode == "yes" && name ~ /^(main|\(below main\)|0x[0-9a-f]+|__libc_start_main.*|asio::detail::scheduler::(run|do_run_one)\(.*)$/) next;
            gsub(/std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >/, "std::string", name);
            gsub(/std::basic_string_view<char, std::char_traits<char> >/, "std::string_view", name);
            gsub(/mcp_loadtest::/, "mlt::", name);
            if (FILENAME == ARGV[1]) { if (mode == "no") a[name] += ir; else if (ir > a[name]) a[name] = ir }
            else { if (mode == "no") b[name] += ir; else if (ir > b[name]) b[name] = ir }
        }
        END { for (k in b) { d = (b[k] - a[k]) / dn; if (d >= 1) printf "%8.0f  %s\n", d, k } }
    ' "$out/annotate.$mode.$n1.txt" "$out/annotate.$mode.$n2.txt" | sort -rn | head -n "$top" | cut -c1-180
}

echo
echo "$profile path: top $top functions by marginal instructions/request, self (exclusive) cost:"
per_function no
echo
echo "top $top by inclusive cost (a function and everything it calls):"
per_function yes
