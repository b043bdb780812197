# Shared by the *instructions_per_request.sh scripts (sourced, not run): checks that
# valgrind and the bench binary are there, and sets `out`, the directory for callgrind's
# files ($KEEP, or a temporary one removed on exit).
#
#     callgrind_setup BIN TARGET
callgrind_setup() {
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "valgrind is not installed (apt-get install valgrind)" >&2
        exit 2
    fi
    if [ ! -x "$1" ]; then
        echo "no $2 at $1; build it (cmake --build <dir> --target $2) or pass its path" >&2
        exit 2
    fi
    if [ -n "${KEEP:-}" ]; then
        out=$KEEP
        mkdir -p "$out"
    else
        out=$(mktemp -d)
        trap 'rm -rf "$out"' EXIT
    fi
}

# The total Ir a callgrind output file recorded.
callgrind_totals() { sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$1" | head -n 1; }
