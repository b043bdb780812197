#!/usr/bin/env bash
# Peer comparison: the same closed load against @modelcontextprotocol/server-everything
# (stdio) with this library (bench_peer, mlt::run + closed_load) and with the mcp-stress
# CLI (npm @mcp-stress/linux-x64; optional, never installed in CI). Prints calls/s and
# client CPU per request of each, per round and as medians, and the ratios
# (library / mcp-stress calls/s; mcp-stress / library CPU per request). Issue 14's
# targets: >= 1.5x the calls/s, >= 10x less CPU per request. It asserts nothing.
#
# Each round also runs the floor: `bench_peer --raw`, the same load with no library
# (bench/raw_driver.hpp: blocking pipes, N requests in flight, each reply's id located
# and nothing else). Its CPU per request is what any client pays for the same calls on
# this machine, the kernel's share included; "library / floor" is what the library adds,
# and "mcp-stress / floor" is the CPU ratio against mcp-stress of a client with no library.
#
#   bench/peer_compare.sh [--rounds R] [--users N] [--seconds D] [--bench-peer PATH]
#     R rounds (default 3), each one run of each tool, alternating (library first);
#     N users (default 8), D seconds of load per run (default 5).
#   Environment: MCP_STRESS (the mcp-stress binary; else `mcp-stress` on PATH, else
#     /tmp/mcp-stress/node_modules/@mcp-stress/linux-x64/bin/mcp-stress), BENCH_PEER (the
#     bench_peer binary; else build*/bench/bench_peer or build/*/bench/bench_peer under the
#     source tree), EVERYTHING_JS, NODE.
#   Without mcp-stress it prints how to install it and runs the library side only:
#     npm install --prefix /tmp/mcp-stress @mcp-stress/linux-x64
#
# The same load: one stdio session to one server process (mcp-stress spawns one server
# and shares it among its workers; bench_peer uses run_options.sessions = 1), N
# concurrent workers each sending tools/call echo back to back (mcp-stress `run -p
# tool-flood --tool echo -c N -d D`, shape constant; bench_peer closed_load{.users = N,
# .duration = D}, no think time), 30 s call timeout, tools/list before the load. Arguments:
# mcp-stress generates a random phrase of a few words for `message` (it cannot be fixed);
# bench_peer sends a fixed phrase of similar length ("role account failed").
#
# calls/s: the library's load_report::throughput_rps (calls ended per second of run
# time); mcp-stress's own `requestsPerSecond` from its --json summary (totalRequests /
# durationMs).
#
# CPU per request, and how the server's CPU is kept out of both sides. Both clients
# spawn the server as their child and reap it, so the CPU figure of the whole process
# tree (what /usr/bin/time -f '%U %S' prints: the client plus its reaped children)
# includes the server. Instead each client runs under a small Python runner that forks
# and execs it, waits for its exit with waitid(WNOWAIT) (the client stays a zombie,
# not yet reaped), and reads /proc/<pid>/stat: utime + stime (fields 14, 15) are the
# client process's own CPU, every thread, children excluded; cutime + cstime (16, 17)
# are its reaped children, the server. Then it reaps the client with wait4(), whose
# rusage is the /usr/bin/time figure (client + server); the script prints all three, so
# "client = whole tree - server" can be checked. mcp-stress spawns no child other than
# the server (ps --forest during a run: one child, the node server), so its own CPU is
# "its children included, the server not". Resolution: clock ticks (10 ms).
#   Library CPU per request: bench_peer's own getrusage(RUSAGE_SELF) delta over run()
#   (RUSAGE_SELF excludes children), divided by its calls: the headline figure. Its
#   whole-process own CPU from /proc (start-up included) is printed as a cross-check.
#   mcp-stress CPU per request: its whole-process own CPU / its totalRequests. That
#   includes its start-up (a Deno runtime); so, per setting, one extra `-n 1` run
#   measures that fixed cost, and a "marginal" figure (own CPU minus it) / requests is
#   printed too; the ratio is given for both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 users=8 seconds=5 bench_peer=${BENCH_PEER:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --users) users=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --bench-peer) bench_peer=$2; shift 2 ;;
    -h|--help) sed -n '2,50p' "$0"; exit 0 ;;
    *) echo "peer_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done

node=${NODE:-$(command -v node || true)}
everything=${EVERYTHING_JS:-$root/tests/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js}
if [ -z "$node" ] || [ ! -f "$everything" ]; then
  echo "peer_compare: server-everything is not installed: npm ci --prefix $root/tests/interop (needs node)" >&2
  exit 1
fi
if [ -z "$bench_peer" ]; then
  for c in "$root"/build*/bench/bench_peer "$root"/build/*/bench/bench_peer "$PWD/bench/bench_peer"; do
    [ -x "$c" ] && { bench_peer=$c; break; }
  done
fi
if [ -z "$bench_peer" ] || [ ! -x "$bench_peer" ]; then
  echo "peer_compare: bench_peer not found; build it (target bench_peer) or set BENCH_PEER" >&2
  exit 1
fi
stress=${MCP_STRESS:-$(command -v mcp-stress || true)}
[ -z "$stress" ] && [ -x /tmp/mcp-stress/node_modules/@mcp-stress/linux-x64/bin/mcp-stress ] &&
  stress=/tmp/mcp-stress/node_modules/@mcp-stress/linux-x64/bin/mcp-stress
if [ -z "$stress" ] || [ ! -x "$stress" ]; then
  echo "peer_compare: mcp-stress not found (MCP_STRESS=path, or on PATH); install it with" >&2
  echo "    npm install --prefix /tmp/mcp-stress @mcp-stress/linux-x64" >&2
  echo "peer_compare: running the library side only" >&2
  stress=""
fi
export GZIP_ALLOWED_DOMAINS=127.0.0.1  # server-everything: never fetch anything remote

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/cpu_of.py" <<'EOF'
# cpu_of.py OUT command...: run command; write its own CPU (every thread, no child), its
# reaped children's CPU and the wait4 rusage (itself + reaped children) to OUT.
import os, sys
tck = os.sysconf("SC_CLK_TCK")
out, cmd = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # a zombie now: /proc/<pid>/stat is final
with open(f"/proc/{pid}/stat") as f:
    fields = f.read().rsplit(")", 1)[1].split()
ut, st, cut, cst = (int(x) / tck for x in fields[11:15])
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(f"self_s={ut + st:.3f} children_s={cut + cst:.3f} tree_s={ru.ru_utime + ru.ru_stime:.3f}\n")
sys.exit(os.waitstatus_to_exitcode(status))
EOF

field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }  # key=value from one line
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

run_bench_peer() {  # run_bench_peer PREFIX [--raw]: sets PREFIX_rps, _calls, _errors, _ns, _self, _server, _tree
  local p=$1; shift
  if ! python3 "$tmp/cpu_of.py" "$tmp/cpu" "$bench_peer" "$@" --users "$users" --seconds "$seconds" \
      -- "$node" "$everything" stdio > "$tmp/$p.out"; then
    echo "peer_compare: bench_peer${*:+ $*} failed:" >&2; tail -20 "$tmp/$p.out" >&2; exit 1
  fi
  local line; line=$(grep '^RESULT' "$tmp/$p.out")
  printf -v "${p}_rps" %s "$(echo "$line" | field calls_per_s)"
  printf -v "${p}_calls" %s "$(echo "$line" | field calls)"
  printf -v "${p}_errors" %s "$(echo "$line" | field errors)"
  printf -v "${p}_ns" %s "$(echo "$line" | field cpu_ns_per_call)"
  printf -v "${p}_self" %s "$(field self_s < "$tmp/cpu")"
  printf -v "${p}_server" %s "$(field children_s < "$tmp/cpu")"
  printf -v "${p}_tree" %s "$(field tree_s < "$tmp/cpu")"
}

run_stress() {  # arguments: how long (-d D, or -n 1)
  if ! python3 "$tmp/cpu_of.py" "$tmp/cpu" "$stress" run -p tool-flood --tool echo --shape constant -c "$users" \
      "$@" --json -- "$node" "$everything" stdio > "$tmp/stress.json" 2> "$tmp/stress.err"; then
    echo "peer_compare: mcp-stress failed:" >&2; tail -20 "$tmp/stress.err" >&2; exit 1
  fi
  ms_rps=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["requestsPerSecond"], j["totalRequests"], j["totalErrors"])' "$tmp/stress.json")
  read -r ms_rps ms_calls ms_errors <<< "$ms_rps"
  ms_self=$(field self_s < "$tmp/cpu"); ms_server=$(field children_s < "$tmp/cpu"); ms_tree=$(field tree_s < "$tmp/cpu")
}

echo "peer_compare: closed load, $users users, ${seconds} s, tools/call echo on server-everything (stdio), $rounds rounds"
echo "  library:    $bench_peer"
echo "  mcp-stress: ${stress:-(absent)}$( [ -n "$stress" ] && echo " ($("$stress" --version 2>/dev/null))")"
echo "  machine:    $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ms_fixed=0
if [ -n "$stress" ]; then
  run_stress -n 1
  ms_fixed=$ms_self
  echo "  mcp-stress fixed cost (one -n 1 run, start-up to exit): ${ms_fixed} s own CPU"
fi
printf '%-6s %-10s %10s %8s %7s %12s %12s %10s %10s\n' round client calls/s calls errors "CPU ns/req" "own CPU s" "server s" "tree s"
: > "$tmp/lib.rps"; : > "$tmp/lib.ns"; : > "$tmp/raw.rps"; : > "$tmp/raw.ns"; : > "$tmp/ms.rps"; : > "$tmp/ms.ns"; : > "$tmp/ms.marginal"
for r in $(seq 1 "$rounds"); do
  run_bench_peer lib
  printf '%-6s %-10s %10.0f %8s %7s %12.0f %12s %10s %10s\n' "$r" library "$lib_rps" "$lib_calls" "$lib_errors" "$lib_ns" \
    "$lib_self" "$lib_server" "$lib_tree"
  echo "$lib_rps" >> "$tmp/lib.rps"; echo "$lib_ns" >> "$tmp/lib.ns"
  run_bench_peer raw --raw
  printf '%-6s %-10s %10.0f %8s %7s %12.0f %12s %10s %10s\n' "$r" "floor(raw)" "$raw_rps" "$raw_calls" "$raw_errors" \
    "$raw_ns" "$raw_self" "$raw_server" "$raw_tree"
  echo "$raw_rps" >> "$tmp/raw.rps"; echo "$raw_ns" >> "$tmp/raw.ns"
  if [ -n "$stress" ]; then
    run_stress -d "$seconds"
    ms_ns=$(awk -v s="$ms_self" -v n="$ms_calls" 'BEGIN {print n ? s / n * 1e9 : 0}')
    ms_marginal=$(awk -v s="$ms_self" -v f="$ms_fixed" -v n="$ms_calls" 'BEGIN {print n ? (s - f) / n * 1e9 : 0}')
    printf '%-6s %-10s %10.0f %8s %7s %12.0f %12s %10s %10s   (marginal %.0f ns/req)\n' "$r" mcp-stress "$ms_rps" \
      "$ms_calls" "$ms_errors" "$ms_ns" "$ms_self" "$ms_server" "$ms_tree" "$ms_marginal"
    echo "$ms_rps" >> "$tmp/ms.rps"; echo "$ms_ns" >> "$tmp/ms.ns"; echo "$ms_marginal" >> "$tmp/ms.marginal"
  fi
done
lib_rps_m=$(median < "$tmp/lib.rps"); lib_ns_m=$(median < "$tmp/lib.ns")
printf 'median library:    %10.0f calls/s, %8.0f ns client CPU per request (over run())\n' "$lib_rps_m" "$lib_ns_m"
raw_rps_m=$(median < "$tmp/raw.rps"); raw_ns_m=$(median < "$tmp/raw.ns")
printf 'median floor(raw): %10.0f calls/s, %8.0f ns client CPU per request (no library)\n' "$raw_rps_m" "$raw_ns_m"
awk -v l="$lib_ns_m" -v r="$raw_ns_m" 'BEGIN { if (r > 0) printf "CPU per request: library / floor = %.2fx\n", l / r }'
if [ -n "$stress" ]; then
  ms_rps_m=$(median < "$tmp/ms.rps"); ms_ns_m=$(median < "$tmp/ms.ns"); ms_mg_m=$(median < "$tmp/ms.marginal")
  printf 'median mcp-stress: %10.0f calls/s, %8.0f ns client CPU per request (whole process; %.0f marginal)\n' \
    "$ms_rps_m" "$ms_ns_m" "$ms_mg_m"
  awk -v a="$lib_rps_m" -v b="$ms_rps_m" -v c="$ms_ns_m" -v m="$ms_mg_m" -v d="$lib_ns_m" 'BEGIN {
    r = a / b; q = c / d; qm = m / d
    printf "calls/s: library / mcp-stress = %.2fx (target >= 1.5x: %s)\n", r, (r >= 1.5) ? "met" : "NOT met"
    printf "CPU per request: mcp-stress / library = %.1fx (target >= 10x: %s); marginal: %.1fx (%s)\n",
           q, (q >= 10) ? "met" : "NOT met", qm, (qm >= 10) ? "met" : "NOT met" }'
  awk -v c="$ms_ns_m" -v r="$raw_ns_m" 'BEGIN { if (r > 0) printf "CPU per request: mcp-stress / floor = %.1fx (mcp-stress against a client with no library)\n", c / r }'
fi
