#!/usr/bin/env bash
# Two builds of bench_throughput side by side, in one run: the library before a change
# and after it. Prints, for each build and as AFTER / BEFORE:
#
#  1. instructions per request under callgrind (client process only, 64 calls in
#     flight), the marginal cost (Ir(N2) - Ir(N1)) / (N2 - N1) of
#     instructions_per_request.sh, for the `--count N` path (one session, `co_await
#     call_tool` in 64 coroutines: "loop") and the `--count N --run` path (mlt::run(),
#     a closed load of 64 users: "run()"); then the TOP functions whose marginal cost
#     per request changed most on each path, self costs for every pass and inclusive
#     ones for the first (callgrind_annotate on the runs, subtracted per function as
#     instructions_per_request.sh does; a function that exists in one build only shows
#     as 0 in the other);
#  2. throughput: R rounds, each one invocation of each build, alternating which goes
#     first (B A, A B, B A, ...) so that drift on a shared machine hits both; every
#     invocation is `bench_throughput --pinned-only --windows W --runs 3 --seconds S`
#     (the raw driver, the loop and run(), interleaved inside it, medians of 3 runs),
#     and the median over rounds of each round's AFTER / BEFORE ratio. The raw driver is
#     the same code in both builds, so its ratio is the noise floor of the others; and
#     each build's library / raw ratio, taken within one invocation, cancels the
#     machine's speed at that moment: its AFTER / BEFORE median is the steadiest figure.
#
#     bench/compare_builds.sh [options] BEFORE AFTER
#     bench/compare_builds.sh [options] --build-before REV [AFTER]
#
#   BEFORE, AFTER   bench_throughput binaries (AFTER defaults to build/default's)
#   --build-before REV   check REV out in a temporary `git worktree`, build its
#                   bench_throughput with the `default` preset (nice -n 10, JOBS=2 jobs)
#                   and use it as BEFORE; the worktree is removed on exit
#   --n1 N1 --n2 N2 callgrind request counts (default 20000, 120000)
#   --repeat K      callgrind passes (default 2): the spread between passes is callgrind's
#                   own noise (how replies batch depends on timing, and run()'s report
#                   on the latencies seen)
#   --top K         functions listed per path and pass (default 12; 0: none)
#   --rounds R      throughput rounds (default 5)
#   --window W      calls in flight for the throughput (default 64)
#   --seconds S     length of one measured run (default 0.5)
#   --cpu N         the CPU driver and server share (default 0)
#   --no-callgrind / --no-throughput   skip one part
#
# Both builds drive the same fast_echo_server (AFTER's, from beside its binary, passed
# with --server), so only the clients differ. Set KEEP=dir to keep the callgrind files.
# Prints figures; asserts nothing (exits non-zero only if a run fails).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
n1=20000 n2=120000 top=12 repeat=2 rounds=5 window=64 seconds=0.5 cpu=0
do_callgrind=1 do_throughput=1 build_rev=""
bins=()
while [ $# -gt 0 ]; do
    case "$1" in
        --n1) n1=$2; shift 2 ;;
        --n2) n2=$2; shift 2 ;;
        --top) top=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --window) window=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --cpu) cpu=$2; shift 2 ;;
        --build-before) build_rev=$2; shift 2 ;;
        --no-callgrind) do_callgrind=0; shift ;;
        --no-throughput) do_throughput=0; shift ;;
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "compare_builds: unknown option $1" >&2; exit 2 ;;
        *) bins+=("$1"); shift ;;
    esac
done
if [ "$n2" -le "$n1" ]; then
    echo "N2 ($n2) must be larger than N1 ($n1)" >&2
    exit 2
fi

. "$here/callgrind_setup.sh" # callgrind_totals
if [ "$do_callgrind" = 1 ] && ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind is not installed (apt-get install valgrind), or pass --no-callgrind" >&2
    exit 2
fi
if [ -n "${KEEP:-}" ]; then out=$KEEP; mkdir -p "$out"; else out=$(mktemp -d); fi

worktree=""
cleanup() {
    if [ -n "$worktree" ]; then git -C "$root" worktree remove --force "$worktree" || true; fi
    if [ -z "${KEEP:-}" ]; then rm -rf "$out"; fi
}
trap cleanup EXIT

if [ -n "$build_rev" ]; then
    [ ${#bins[@]} -le 1 ] || { echo "compare_builds: --build-before takes at most AFTER" >&2; exit 2; }
    after=${bins[0]:-$root/build/default/bench/bench_throughput}
    worktree=$(mktemp -d "${TMPDIR:-/tmp}/mlt-before.XXXXXX")
    rmdir "$worktree"
    git -C "$root" worktree add --detach "$worktree" "$build_rev" >/dev/null
    echo "building bench_throughput at $(git -C "$worktree" log -1 --format='%h %s' | cut -c1-80)"
    echo "  in $worktree (default preset: RelWithDebInfo, -O2 -g1; this takes minutes)"
    (cd "$worktree" && nice -n 10 cmake --preset default -B "$worktree/build/default" >"$out/before-configure.log" 2>&1 &&
        nice -n 10 cmake --build "$worktree/build/default" --target bench_throughput -j "${JOBS:-2}" \
            >"$out/before-build.log" 2>&1) || {
        echo "building $build_rev failed; the log's end:" >&2
        tail -n 30 "$out"/before-*.log >&2
        exit 1
    }
    before=$worktree/build/default/bench/bench_throughput
else
    if [ ${#bins[@]} -ne 2 ]; then
        echo "usage: compare_builds.sh [options] BEFORE AFTER   (or --build-before REV [AFTER]; --help)" >&2
        exit 2
    fi
    before=${bins[0]} after=${bins[1]}
fi
for b in "$before" "$after"; do
    [ -x "$b" ] || { echo "no bench_throughput at $b" >&2; exit 2; }
done
server=$(dirname "$after")/fast_echo_server
[ -x "$server" ] || { echo "no fast_echo_server beside $after (build the bench_throughput target)" >&2; exit 2; }

echo "BEFORE: $before"
echo "AFTER:  $after"
echo "server: $server (both)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u '+%Y-%m-%d %H:%M UTC')"

# ---- 1. instructions per request ---------------------------------------------------

# ir BUILD PATH N PASS: runs callgrind, prints the client's total Ir.
ir() {
    local build=$1 path=$2 n=$3 pass=$4 bin extra=()
    if [ "$build" = before ]; then bin=$before; else bin=$after; fi
    if [ "$path" = run ]; then extra=(--run); fi
    local file="$out/$build.$path.$n.$pass.callgrind"
    if ! valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" --count "$n" "${extra[@]}" \
        --server "$server" >"$out/$build.$path.$n.$pass.log" 2>&1; then
        echo "callgrind run failed: $bin --count $n ${extra[*]}" >&2
        cat "$out/$build.$path.$n.$pass.log" >&2
        exit 1
    fi
    callgrind_totals "$file"
}

# per_function PATH MODE PASS: marginal instructions per request of every function, self
# (MODE no) or inclusive (yes), in each build; prints the TOP by |after - before|.
# Same parsing as instructions_per_request.sh.
per_function() {
    local path=$1 mode=$2 pass=$3 build n
    for build in before after; do
        for n in "$n1" "$n2"; do
            callgrind_annotate --inclusive="$mode" --auto=no --threshold=100 "$out/$build.$path.$n.$pass.callgrind" \
                >"$out/annotate.$build.$path.$mode.$n.txt" 2>/dev/null
        done
    done
    awk -v dn=$((n2 - n1)) -v mode="$mode" '
        FNR == 1 { table = 0; f++ }   # files: before N1, before N2, after N1, after N2
        /file:function/ { table = 1; next }
        !table { next }
        /^ *[0-9][0-9,]* \( *[0-9.]+%\)  / {
            ir = $0; sub(/^ */, "", ir); sub(/ .*/, "", ir); gsub(/,/, "", ir); ir += 0;
            name = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\)  /, "", name);
            sub(/ \[[^]]*\]$/, "", name);
            i = index(name, ":"); name = substr(name, i + 1);
            if (mode == "yes" && name ~ /^(main|\(below main\)|0x[0-9a-f]+|__libc_start_main.*|asio::detail::scheduler::(run|do_run_one)\(.*)$/) next;
            gsub(/std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >/, "std::string", name);
            gsub(/std::basic_string_view<char, std::char_traits<char> >/, "std::string_view", name);
            gsub(/mcp_loadtest::/, "mlt::", name);
            seen[name] = 1;
            if (mode == "no") v[f, name] += ir; else if (ir > v[f, name]) v[f, name] = ir;
        }
        END {
            for (k in seen) {
                b = (v[2, k] - v[1, k]) / dn; a = (v[4, k] - v[3, k]) / dn; d = a - b;
                if (d >= 1 || d <= -1) printf "%9d %9d %+9d  %s\n", int(b + (b < 0 ? -0.5 : 0.5)), int(a + (a < 0 ? -0.5 : 0.5)), int(d + (d < 0 ? -0.5 : 0.5)), k;
            }
        }
    ' "$out/annotate.before.$path.$mode.$n1.txt" "$out/annotate.before.$path.$mode.$n2.txt" \
        "$out/annotate.after.$path.$mode.$n1.txt" "$out/annotate.after.$path.$mode.$n2.txt" |
        awk '{ d = $3 + 0; print (d < 0 ? -d : d) "\t" $0 }' | sort -rn | cut -f2- |
        awk -v top="$top" 'NR <= top { if (length($0) > 200) $0 = substr($0, 1, 130) " ... " substr($0, length($0) - 64); print }' 
}

if [ "$do_callgrind" = 1 ]; then
    declare -A total
    # Interleaved: each pass runs both builds, so a change of the machine's timing
    # between passes hits both.
    for pass in $(seq 1 "$repeat"); do
        for path in loop run; do
            for n in "$n1" "$n2"; do
                for build in before after; do total[$build.$path.$n.$pass]=$(ir "$build" "$path" "$n" "$pass"); done
            done
        done
    done
    echo
    echo "instructions per request: callgrind, client process only, 64 calls in flight, marginal over N = $n1 -> $n2"
    printf '  %-38s %4s %10s %10s %12s\n' path pass BEFORE AFTER AFTER/BEFORE
    for path in run loop; do
        label="loop (--count N: co_await call_tool)"
        if [ "$path" = run ]; then label="run() (--count N --run)"; fi
        for pass in $(seq 1 "$repeat"); do
            awk -v b1="${total[before.$path.$n1.$pass]}" -v b2="${total[before.$path.$n2.$pass]}" \
                -v a1="${total[after.$path.$n1.$pass]}" -v a2="${total[after.$path.$n2.$pass]}" -v dn=$((n2 - n1)) \
                -v label="$label" -v pass="$pass" \
                'BEGIN { b = (b2 - b1) / dn; a = (a2 - a1) / dn;
                         printf "  %-38s %4d %10.1f %10.1f %12.4f   (%+.1f)\n", label, pass, b, a, a / b, a - b }'
        done
    done
    if [ "$top" -gt 0 ]; then
        for path in run loop; do
            for pass in $(seq 1 "$repeat"); do
                echo
                echo "$path path, pass $pass: the $top functions whose marginal instructions/request changed most, self (exclusive)"
                printf '%9s %9s %9s  %s\n' BEFORE AFTER change function
                per_function "$path" no "$pass"
            done
            echo
            echo "$path path, pass 1: the same by inclusive cost (coroutine frames inlined or cloned differently move between"
            echo "names, and callgrind splits recursion through resumptions by timing: even one build run twice differs here)"
            printf '%9s %9s %9s  %s\n' BEFORE AFTER change function
            per_function "$path" yes 1
        done
    fi
fi

# ---- 2. throughput ------------------------------------------------------------------

# rates BIN LOGNAME: one invocation; prints "raw loop run" in calls/s for the window.
rates() {
    local log="$out/throughput.$2.log"
    if ! "$1" --pinned-only --cpu "$cpu" --windows "$window" --runs 3 --seconds "$seconds" --in-flight 0 \
        --sustained 0 --server "$server" >"$log" 2>&1; then
        echo "throughput run failed: $1" >&2
        cat "$log" >&2
        exit 1
    fi
    # The row: "  W  raw (spread)  loop (spread) ratio  run() (spread) ratio ...": the first
    # three numbers with a k or M suffix are the three rates.
    awk -v w="$window" '$1 == w && /[0-9]x/ {
        n = 0
        for (i = 2; i <= NF && n < 3; i++)
            if ($i ~ /^[0-9.]+[kM]$/) { v = substr($i, 1, length($i) - 1) * (($i ~ /M$/) ? 1e6 : 1e3); r[++n] = v }
        printf "%.0f %.0f %.0f\n", r[1], r[2], r[3]; exit
    }' "$log"
}

if [ "$do_throughput" = 1 ]; then
    echo
    echo "throughput: pinned to CPU $cpu, W = $window in flight, each invocation the median of 3 runs of $seconds s;"
    echo "$rounds rounds, BEFORE and AFTER alternating; calls/s, and AFTER / BEFORE per round"
    printf '  %5s %6s   %-27s   %-27s   %s\n' round first 'BEFORE: raw, loop, run()' 'AFTER: raw, loop, run()' \
        'AFTER/BEFORE: raw, loop, run()'
    : >"$out/rounds.txt"
    for r in $(seq 1 "$rounds"); do
        if [ $((r % 2)) = 1 ]; then
            b=$(rates "$before" "before.$r"); a=$(rates "$after" "after.$r"); first=BEFORE
        else
            a=$(rates "$after" "after.$r"); b=$(rates "$before" "before.$r"); first=AFTER
        fi
        echo "$r $first $b $a" >>"$out/rounds.txt"
        echo "$r $first $b $a" | awk '{
            printf "  %5s %6s   %8.0f %8.0f %8.0f   %8.0f %8.0f %8.0f   %6.3f %6.3f %6.3f\n",
                $1, $2, $3, $4, $5, $6, $7, $8, $6 / $3, $7 / $4, $8 / $5 }'
    done
    sort -n "$out/rounds.txt" | awk '
        function median(a, n,    i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { n++; rr[n] = $6 / $3; rl[n] = $7 / $4; ru[n] = $8 / $5;
          bl[n] = $4 / $3; bu[n] = $5 / $3; al[n] = $7 / $6; au[n] = $8 / $6;
          nl[n] = ($7 / $6) / ($4 / $3); nu[n] = ($8 / $6) / ($5 / $3) }
        END {
            printf "  median of %d rounds, AFTER / BEFORE: raw driver %.3f (same code: the noise), loop %.3f, run() %.3f\n",
                n, median(rr, n), median(rl, n), median(ru, n);
            printf "  library / raw within each invocation, medians: BEFORE loop %.3f, run() %.3f; AFTER loop %.3f, run() %.3f\n",
                median(bl, n), median(bu, n), median(al, n), median(au, n);
            printf "  AFTER / BEFORE of library / raw (each invocation against its own raw driver),\n";
            printf "    median of %d rounds: loop %.3f, run() %.3f\n", n, median(nl, n), median(nu, n);
        }'
    echo "  machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
fi
