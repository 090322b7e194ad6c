#!/usr/bin/env bash
# Run the A2A Technology Compatibility Kit (github.com/a2aproject/a2a-tck) against the green and purple
# agents, each started on a free loopback port from this checkout's build (npm run build first). The kit
# is not vendored: pass the directory of a checkout of it (docs/conformance.md names the commit).
#
#   scripts/a2a-tck.sh TCK_DIR [options]
#     --agents LIST       green,purple (default both)
#     --transports LIST   jsonrpc,rest (default both; each run pins the kit to one transport)
#     --categories LIST   mandatory,capabilities,quality,features (default mandatory,capabilities)
#     --cli PATH          the a2a-bench CLI to start the agents with (default dist/cli.js)
#     --out DIR           where the JUnit XML reports and agent logs go (default results/a2a-tck)
#
# The kit needs python3 with pytest, pytest-asyncio, httpx, requests, responses, deepdiff, jsonschema,
# packaging, PyYAML, python-dotenv, grpcio, protobuf and aiohttp; on Debian 12 all come from apt
# (docs/conformance.md). Environment: PYTHON (default /usr/bin/python3 when present, else python3),
# TCK_RUN_SECONDS (one category run's time limit, default 900).
# Prints one summary line per agent × transport × category; exits 0 when every run completed (test
# failures included: they are the result), non-zero on a usage error or when an agent does not start.
set -euo pipefail

# How long one agent gets to log that it is listening.
START_TIMEOUT_SECONDS=30
# The kit's own per-request timeouts are 10–30 s; a whole category run gets this much (SIGTERM, then SIGKILL 10 s later).
RUN_SECONDS="${TCK_RUN_SECONDS:-900}"

die() { echo "a2a-tck: $*" >&2; exit 2; }
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
TCK_DIR="$1"; shift
AGENTS="green,purple"
TRANSPORTS="jsonrpc,rest"
CATEGORIES="mandatory,capabilities"
REPO_DIR="$(cd "$(dirname "$0")/.." && pwd)"
CLI="$REPO_DIR/dist/cli.js"
OUT="$REPO_DIR/results/a2a-tck"
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS="${2:?--agents needs a value}"; shift 2 ;;
    --transports) TRANSPORTS="${2:?--transports needs a value}"; shift 2 ;;
    --categories) CATEGORIES="${2:?--categories needs a value}"; shift 2 ;;
    --cli) CLI="${2:?--cli needs a value}"; shift 2 ;;
    --out) OUT="${2:?--out needs a value}"; shift 2 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[ -f "$TCK_DIR/run_tck.py" ] && [ -d "$TCK_DIR/tests/mandatory" ] || die "$TCK_DIR is not an a2a-tck checkout (no run_tck.py, tests/mandatory)"
[ -f "$CLI" ] || die "$CLI not found: run npm run build first, or pass --cli"
if [ -z "${PYTHON:-}" ]; then
  if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
"$PYTHON" -c 'import pytest, pytest_asyncio, httpx, requests, responses, deepdiff, jsonschema, packaging, yaml, dotenv, grpc, aiohttp' 2>/dev/null \
  || die "$PYTHON lacks the kit's modules; see docs/conformance.md for the Debian packages"
for a in ${AGENTS//,/ }; do case "$a" in green|purple) ;; *) die "--agents: unknown agent $a" ;; esac; done
for t in ${TRANSPORTS//,/ }; do case "$t" in jsonrpc|rest) ;; *) die "--transports: unknown transport $t" ;; esac; done
for c in ${CATEGORIES//,/ }; do case "$c" in mandatory|capabilities|quality|features) ;; *) die "--categories: unknown category $c" ;; esac; done
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

AGENT_PID=""
stop_agent() {
  if [ -n "$AGENT_PID" ] && kill -0 "$AGENT_PID" 2>/dev/null; then
    kill "$AGENT_PID" 2>/dev/null || true
    wait "$AGENT_PID" 2>/dev/null || true
  fi
  AGENT_PID=""
}
trap stop_agent EXIT
trap 'exit 130' INT TERM

# Start agent $1 on a free loopback port; sets AGENT_PID and AGENT_URL. The card names the agent as
# localhost: the kit's card check takes a 127.0.0.1 URL for a leaked internal address (and lets localhost pass).
start_agent() {
  local name="$1" log="$OUT/$1.log" port
  port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
  node "$CLI" "$name" --host 127.0.0.1 --port "$port" --card-url "http://localhost:$port/" >"$log" 2>&1 &
  AGENT_PID=$!
  AGENT_URL="http://localhost:$port"
  for _ in $(seq 1 $((START_TIMEOUT_SECONDS * 10))); do
    # Both agents log a line with "listening" once bound.
    grep -q 'listening' "$log" 2>/dev/null && return 0
    kill -0 "$AGENT_PID" 2>/dev/null || die "$name agent exited at start; see $log"
    sleep 0.1
  done
  die "$name agent did not start listening within ${START_TIMEOUT_SECONDS}s; see $log"
}

# Category → test path and marker expression, as the kit's run_tck.py selects them.
category_args() {
  case "$1/$2" in
    mandatory/jsonrpc) echo "tests/mandatory/|mandatory or mandatory_protocol or mandatory_jsonrpc" ;;
    mandatory/*) echo "tests/mandatory/|mandatory or mandatory_protocol" ;;
    capabilities/*) echo "tests/optional/capabilities/|" ;;
    quality/*) echo "tests/optional/quality/|" ;;
    features/*) echo "tests/optional/features/|" ;;
  esac
}

for agent in ${AGENTS//,/ }; do
  start_agent "$agent"
  for transport in ${TRANSPORTS//,/ }; do
    for category in ${CATEGORIES//,/ }; do
      IFS='|' read -r path markers <<<"$(category_args "$category" "$transport")"
      report="$OUT/$agent-$transport-$category.xml"
      args=("$path" "--sut-url=$AGENT_URL" --test-scope=all "--transports=$transport" --tb=line -q -p no:cacheprovider "--junitxml=$report")
      [ -n "$markers" ] && args+=(-m "$markers")
      set +e
      (cd "$TCK_DIR" && timeout -k 10 "$RUN_SECONDS" "$PYTHON" -m pytest "${args[@]}") >"$OUT/$agent-$transport-$category.txt" 2>&1
      status=$?
      set -e
      summary="$(tail -n1 "$OUT/$agent-$transport-$category.txt")"
      [ "$status" -eq 124 ] && summary="timed out after ${RUN_SECONDS}s"
      printf '%-7s %-8s %-13s %s\n' "$agent" "$transport" "$category" "$summary"
    done
  done
  stop_agent
done
