#!/usr/bin/env bash
# Builds (once) test/re2go, the Go program that answers for Go's regexp package (the reference
# for crdgen's RE2 engine), into .cache/re2go/<stamp>/re2go, and prints that path last.
# The folder is named by a hash of test/re2go's go.mod and .go files, so a worktree sharing .cache/
# with other sources builds beside it. Standard library only: no module download. Go's build cache
# is .cache/go/build, shared with scripts/ensure-control-plane.sh. Cold: a few seconds; cached:
# instant.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once re2-go
root=$PWD
src="$root/test/re2go"

export GOMODCACHE=${GOMODCACHE_CRDGEN:-$root/.cache/go/mod}
export GOCACHE=${GOCACHE_CRDGEN:-$root/.cache/go/build}
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
export GOTOOLCHAIN=local

stamp=$(cd "$src" && find . -type f \( -name '*.go' -o -name go.mod \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
bin="$root/.cache/re2go/$stamp/re2go"
if [ ! -x "$bin" ]; then
  command -v go >/dev/null 2>&1 || { echo "re2-go: go is not on PATH: install Go 1.26 or newer" >&2; exit 1; }
  mkdir -p "$(dirname "$bin")"
  (cd "$src" && go build -trimpath -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
  echo "re2-go: built $bin ($(go version))" >&2
fi
echo "$bin"
