#!/usr/bin/env bash
# The system packages a2a-bench needs (Debian/Ubuntu names), in ONE list shared by
# `npm run setup` (users), .ci/run (CI) and the test suite's global setup (`--check`).
#
#   scripts/setup-system.sh           install what is missing with apt-get (as root, or through
#                                     password-less sudo); otherwise print the exact command, exit 1
#   scripts/setup-system.sh --check   install nothing: list what is missing, exit 1 if anything is
#
# Idempotent: nothing is installed when every tool is already there.
set -euo pipefail

mode="${1:-install}"
case "$mode" in
  install | --check) ;;
  *) echo "usage: scripts/setup-system.sh [--check]" >&2; exit 2 ;;
esac

missing=()   # apt package names
why=()       # one line per missing package: what needs it
need() { missing+=("$1"); why+=("  $1: $2"); }
# has_module PYTHON MODULE: the module is importable (found, not imported: fast).
has_module() { "$1" -c "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('$2') else 1)" >/dev/null 2>&1; }

# The local sandbox: bubblewrap is the full isolation (without it runs fall back to a weaker one);
# unshare/setpriv/prlimit (util-linux) are its fallback, uid drop and resource limits.
command -v bwrap >/dev/null 2>&1 || need bubblewrap "bwrap, the local sandbox's isolation"
command -v unshare >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1 ||
  need util-linux "unshare, setpriv, prlimit (sandbox fallback, uid drop, resource limits)"
command -v python3 >/dev/null 2>&1 || need python3 "python3, which runs HumanEval/RedCode/SWE-bench programs"
# SWE-bench's sample repositories run their tests with pytest.
has_module python3 pytest || need python3-pytest "pytest for python3 (SWE-bench tests)"
# RedCode-Exec programs import psutil/requests; the RedCode wrapper uses the first python3 that has them.
if [ -x /usr/bin/python3 ]; then
  has_module /usr/bin/python3 psutil || need python3-psutil "psutil for /usr/bin/python3 (RedCode-Exec programs)"
  has_module /usr/bin/python3 requests || need python3-requests "requests for /usr/bin/python3 (RedCode-Exec programs)"
elif ! command -v python3 >/dev/null 2>&1; then
  need python3-psutil "psutil (RedCode-Exec programs)"
  need python3-requests "requests (RedCode-Exec programs)"
fi
command -v git >/dev/null 2>&1 || need git "git, which checks out SWE-bench repositories"
command -v curl >/dev/null 2>&1 || need curl "curl (the Docker HEALTHCHECK, the JSON-RPC examples in docs/)"
# The run viewer's end-to-end tests drive Debian's chromium headless (playwright-core downloads no browser).
command -v chromium >/dev/null 2>&1 || need chromium "chromium, the headless browser of the viewer's end-to-end tests (a2a-bench view)"

if [ ${#missing[@]} -eq 0 ]; then
  [ "$mode" = --check ] || echo "setup: system packages present"
  exit 0
fi

command_line="apt-get update && apt-get install -y ${missing[*]}"
if [ "$mode" = --check ]; then
  echo "missing system packages:" >&2
  printf '%s\n' "${why[@]}" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing system packages (Debian names):" >&2
  printf '%s\n' "${why[@]}" >&2
  echo "setup: no apt-get on this machine; install the equivalents with your package manager." >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo=(sudo -n)
else
  echo "setup: missing system packages:" >&2
  printf '%s\n' "${why[@]}" >&2
  echo "setup: not root and no password-less sudo; run this, then \`npm run setup\` again:" >&2
  echo "  sudo sh -c '$command_line'" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
# Check again: a package that installed but does not provide the tool is still a failure.
exec "$0" --check
