#!/usr/bin/env bash
# Fuzzing stage: builds the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) with Clang in their own
# build directory and runs each for a fixed time on a copy of its seed corpus
# (tests/fuzz/corpus/<harness>/). Any crash, sanitizer report, leak, timeout or failed harness
# check fails the stage; the input that did it is kept under <build>/artifacts/.
#
# Usage: .ci/fuzz.sh [seconds per harness, default 8]
# Environment: CXX_FUZZ (default clang++-16), FUZZ_BUILD_DIR (default build/fuzz), JOBS (build
# parallelism, default: Ninja's), FUZZ_JOBS (harnesses run at once, default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-8}
build=${FUZZ_BUILD_DIR:-build/fuzz}
cxx=${CXX_FUZZ:-clang++-16}
start=$SECONDS

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz: $cxx not found; on Debian 12: apt-get install clang-16 libclang-rt-16-dev (.ci/install-deps.sh does)" >&2
  exit 1
fi
# Symbolized stacks in sanitizer reports: Clang's runtime does not find llvm-symbolizer by itself
# unless the matching llvm package is installed.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  for symbolizer in llvm-symbolizer-16 llvm-symbolizer; do
    if command -v "$symbolizer" >/dev/null 2>&1; then
      export ASAN_SYMBOLIZER_PATH=$(command -v "$symbolizer")
      break
    fi
  done
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMCP_LOADTEST_BUILD_FUZZERS=ON -DMCP_LOADTEST_BUILD_TESTS=OFF -DMCP_LOADTEST_BUILD_EXAMPLES=OFF \
  -DMCP_LOADTEST_BUILD_BENCH=OFF -DMCP_LOADTEST_INSTALL=OFF -DMCP_LOADTEST_TLS=OFF >/dev/null
cmake --build "$build" ${JOBS:+-j "$JOBS"}
echo "fuzz: built in $((SECONDS - start)) s; ${seconds} s per harness"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/artifacts"
jobs_max=${FUZZ_JOBS:-$(nproc)}  # one harness per core: each is single-threaded

fuzz_one() {  # <name>: runs one harness; its summary line goes to <work>/<name>.line, its status out
  local name=$1 corpus=$work/$1 log=$work/$1.log execs rate cov
  # libFuzzer adds to the corpus it is given: not the repository's. A *_portable variant
  # (the same harness built with MCP_LOADTEST_NO_SIMD) starts from its harness's corpus.
  cp -r "tests/fuzz/corpus/${name%_portable}" "$corpus"
  if "$build/tests/fuzz/fuzz_$name" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" | tail -1)
    printf 'fuzz: %-18s ok    %9s runs %7s/s  %s\n' "$name" "$execs" "$rate" "$cov" >"$work/$name.line"
  else
    printf 'fuzz: %-18s FAILED (log below; the input is in %s/artifacts/)\n' "$name" "$build" >"$work/$name.line"
    tail -n 60 "$log" >>"$work/$name.line"
    return 1
  fi
}

names=()
for source in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  names+=("${name#fuzz_}")
done
# Up to jobs_max harnesses at once; lines are printed in the harnesses' order once all are done.
pids=()
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_one "$name" &
  pids+=($!)
done
failed=()
for i in "${!names[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]}")
  cat "$work/${names[$i]}.line" 2>/dev/null || echo "fuzz: ${names[$i]} FAILED before it ran (its corpus could not be copied?)"
done
echo "fuzz: $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}; reproduce with $build/tests/fuzz/fuzz_<harness> <input> (docs/fuzzing.md)" >&2
  exit 1
fi
