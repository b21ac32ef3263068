#!/usr/bin/env bash
# Builds (once) the Go peers of crdgen's benchmarks on the real control plane (bench/go-peers.ts),
# from the Go module proxy, into .cache/bench-peers/<stamp>/bin/:
#   - go-informer: bench/go-informer, client-go v0.37.1 shared informers (typed and dynamic)
#   - go-operator: bench/go-operator, the DatabaseManager operator on controller-runtime v0.25.3
# Idempotent: nothing is rebuilt while the stamp (a hash of both folders' Go sources, go.mod and
# go.sum) matches. Go's module and build caches are .cache/go/, shared with
# scripts/ensure-control-plane.sh and scripts/ensure-go-clients.sh, so after those only
# controller-runtime and its few own dependencies are downloaded. Cold after the control plane:
# about a minute on 2 cores; cached: under a second. The last line of standard output is the bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once ensure-bench-peers
root=$PWD


export GOMODCACHE=${GOMODCACHE_CRDGEN:-$root/.cache/go/mod}
export GOCACHE=${GOCACHE_CRDGEN:-$root/.cache/go/build}
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
export GOTOOLCHAIN=local

log() { echo "ensure-bench-peers: $*" >&2; }

stamp=$(cd "$root/bench" && find go-informer go-operator -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
# one folder per version of the sources: worktrees on different versions share .cache/ without rebuilding each other's
bin="$root/.cache/bench-peers/$stamp/bin"
mkdir -p "$bin"
if [ -x "$bin/go-informer" ] && [ -x "$bin/go-operator" ] && [ "$(cat "$bin/.stamp" 2>/dev/null)" = "$stamp" ]; then
  log "go-informer and go-operator already built ($bin)"
  echo "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is not on PATH: install Go 1.26 or newer"; exit 1; }
started=$(date +%s)
for name in go-operator go-informer; do
  t0=$(date +%s)
  (cd "$root/bench/$name" && go build -trimpath -ldflags "-s -w" -o "$bin/$name.tmp" .)
  mv "$bin/$name.tmp" "$bin/$name"
  log "built $name in $(($(date +%s) - t0)) s"
done
echo "$stamp" >"$bin/.stamp"
log "done in $(($(date +%s) - started)) s"
echo "$bin"
