#!/usr/bin/env bash
# A private container engine for tests, CI and local image builds, and the
# Debian base image they build on. No registry is needed: the base image is a
# `debootstrap --variant=minbase` rootfs made through this machine's configured
# Debian mirror, imported with `docker import`, and cached as a tarball so a
# rerun does not debootstrap again.
#
#   scripts/container-engine.sh start  [STATE_DIR]   start dockerd on STATE_DIR/docker.sock (idempotent);
#                                                    prints `export DOCKER_HOST=unix://…`
#   scripts/container-engine.sh stop   [STATE_DIR]   stop that dockerd (TERM, then KILL after 15 s) and its containers
#   scripts/container-engine.sh base-image [TAG]     import the cached base rootfs as TAG
#                                                    (default a2a-bench/debian-base:bookworm), building the cache first
#
# STATE_DIR defaults to $A2A_BENCH_ENGINE_DIR or /tmp/a2a-bench-engine. The engine runs as root with
# --bridge none and no iptables changes: containers get no network unless a test gives them one.
# Environment: A2A_BENCH_ROOTFS_CACHE (cache dir, default ${XDG_CACHE_HOME:-$HOME/.cache}/a2a-bench),
# A2A_BENCH_DEBIAN_MIRROR (default: the first Debian URI in the apt sources).
set -euo pipefail

STATE_DIR="${A2A_BENCH_ENGINE_DIR:-/tmp/a2a-bench-engine}"
case "${1:-}" in start|stop) STATE_DIR="${2:-$STATE_DIR}" ;; esac
CACHE_DIR="${A2A_BENCH_ROOTFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/a2a-bench}"
SUITE=bookworm
# Packages the base image carries beyond minbase: what SWE-bench test beds and the runner image need.
BASE_PACKAGES="python3,python3-pytest,git,ca-certificates,curl,patch"
# How long `stop` waits after SIGTERM before SIGKILL (dockerd stops its containers first; 10 s is its own default per container).
STOP_GRACE_SECONDS=15

die() { echo "container-engine: $*" >&2; exit 1; }

sock() { echo "$STATE_DIR/docker.sock"; }

engine_up() { DOCKER_HOST="unix://$(sock)" docker info >/dev/null 2>&1; }

start() {
  command -v dockerd >/dev/null || die "dockerd not found: install it with 'apt-get install -y docker.io' (as root)"
  [ "$(id -u)" = 0 ] || die "dockerd must be started as root"
  mkdir -p "$STATE_DIR"
  if engine_up; then echo "export DOCKER_HOST=unix://$(sock)"; return 0; fi
  rm -f "$(sock)" "$STATE_DIR/docker.pid"
  # setsid: the engine outlives this script (stop kills it), not the caller's terminal.
  setsid dockerd \
    --host "unix://$(sock)" \
    --data-root "$STATE_DIR/data" \
    --exec-root "$STATE_DIR/exec" \
    --pidfile "$STATE_DIR/docker.pid" \
    --storage-driver overlay2 \
    --bridge none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
    >"$STATE_DIR/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 1 120); do
    if engine_up; then echo "export DOCKER_HOST=unix://$(sock)"; return 0; fi
    sleep 0.25
  done
  tail -20 "$STATE_DIR/dockerd.log" >&2 || true
  die "dockerd did not answer on $(sock) within 30 s (log: $STATE_DIR/dockerd.log)"
}

stop() {
  local pidfile="$STATE_DIR/docker.pid" pid
  [ -f "$pidfile" ] || { echo "container-engine: not running ($STATE_DIR)"; return 0; }
  pid="$(cat "$pidfile")"
  if engine_up; then
    # Containers first, so none is left running under a dead daemon's shim.
    ids="$(DOCKER_HOST="unix://$(sock)" docker ps -aq || true)"
    [ -z "$ids" ] || DOCKER_HOST="unix://$(sock)" docker rm -f $ids >/dev/null 2>&1 || true
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((STOP_GRACE_SECONDS * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  # dockerd's own containerd and shims live in its process tree under the exec root.
  pkill -KILL -f -- "$STATE_DIR/exec" 2>/dev/null || true
  rm -f "$pidfile" "$(sock)"
  echo "container-engine: stopped ($STATE_DIR)"
}

mirror() {
  if [ -n "${A2A_BENCH_DEBIAN_MIRROR:-}" ]; then echo "$A2A_BENCH_DEBIAN_MIRROR"; return; fi
  local uri
  uri="$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1)"
  [ -n "$uri" ] || uri="$(grep -hsE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -1)"
  [ -n "$uri" ] || die "no Debian mirror in the apt sources; set A2A_BENCH_DEBIAN_MIRROR"
  echo "$uri"
}

rootfs_tar() {
  local tar="$CACHE_DIR/debian-$SUITE-minbase-$(echo "$BASE_PACKAGES" | cksum | cut -d' ' -f1).tar"
  if [ ! -s "$tar" ]; then
    command -v debootstrap >/dev/null || die "debootstrap not found: install it with 'apt-get install -y debootstrap' (as root)"
    mkdir -p "$CACHE_DIR"
    local dir; dir="$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")"
    echo "container-engine: debootstrap $SUITE from $(mirror) (once; cached in $tar)" >&2
    if ! debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$dir" "$(mirror)" >"$dir.log" 2>&1; then
      tail -20 "$dir.log" >&2; rm -rf "$dir" "$dir.log"; die "debootstrap failed"
    fi
    rm -rf "$dir/var/cache/apt/archives/"*.deb "$dir/var/lib/apt/lists/"*
    tar -C "$dir" -cf "$tar.part" . && mv "$tar.part" "$tar"
    rm -rf "$dir" "$dir.log"
  fi
  echo "$tar"
}

base_image() {
  local tag="${1:-a2a-bench/debian-base:$SUITE}"
  engine_up || [ -n "${DOCKER_HOST:-}" ] || die "no engine: run 'scripts/container-engine.sh start' first"
  export DOCKER_HOST="${DOCKER_HOST:-unix://$(sock)}"
  if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; return 0; fi
  docker import "$(rootfs_tar)" "$tag" >/dev/null
  echo "$tag"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  base-image) base_image "${2:-}" ;;
  *) echo "usage: scripts/container-engine.sh start|stop [STATE_DIR] | base-image [TAG]" >&2; exit 2 ;;
esac
