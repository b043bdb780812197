#!/bin/sh
# Instructions per reply of the envelope scanner, by reply shape, counted by callgrind.
#
#     bench/scan_instructions_per_reply.sh [BENCH_ENVELOPE] [N1] [N2] [SHAPES...]
#
# For each shape, `bench_envelope --scan SHAPE N` (N replies of that shape, ids varied)
# under `valgrind --tool=callgrind` for N1 and N2 scans; the marginal cost
# (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up. The same with `--exact`, the scanner
# without its fast path for valid objects (scan_exact: every line read the way an invalid
# one is), is the baseline in the same run. Defaults: build/default/bench/bench_envelope,
# N1=100000, N2=300000, every shape. Set KEEP=dir to keep the callgrind files. Prints
# figures; asserts nothing (exits non-zero only if a run fails).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/default/bench/bench_envelope}
n1=${2:-100000}
n2=${3:-300000}
[ $# -gt 3 ] && shift 3 || set --
shapes=${*:-echo error is-error result-first structured spaced text-2k bad-utf8}

if [ "$n2" -le "$n1" ]; then
    echo "N2 ($n2) must be larger than N1 ($n1)" >&2
    exit 2
fi
. "$here/callgrind_setup.sh"
callgrind_setup "$bin" bench_envelope

# per_reply SHAPE [--exact]: the marginal instructions per scan.
per_reply() {
    for n in "$n1" "$n2"; do
        file="$out/$1$2.$n.callgrind"
        if ! valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" --scan "$1" "$n" $2 >"$out/$1$2.$n.log" 2>&1; then
            echo "callgrind run failed: $bin --scan $1 $n $2" >&2
            cat "$out/$1$2.$n.log" >&2
            exit 1
        fi
    done
    a=$(callgrind_totals "$out/$1$2.$n1.callgrind")
    b=$(callgrind_totals "$out/$1$2.$n2.callgrind")
    echo $(((b - a) / (n2 - n1)))
}

echo "callgrind, instructions per reply, marginal over N = $n1 -> $n2 scans"
printf '  %-14s %10s %18s %8s\n' shape 'scan()' 'scan_exact()' ratio
for s in $shapes; do
    fast=$(per_reply "$s" "")
    exact=$(per_reply "$s" --exact)
    printf '  %-14s %10s %18s %8s\n' "$s" "$fast" "$exact" "$(awk -v a="$fast" -v b="$exact" 'BEGIN { printf "%.2f", a / b }')"
done
