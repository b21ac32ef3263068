#!/usr/bin/env bash
# Builds (once) the Go clients the client-go suites run against `crdgen testenv` and the real
# control plane, from the Go module proxy, into .cache/go-clients/<stamp>/bin/:
#   - sample-controller: k8s.io/sample-controller, unmodified (its version pinned in
#     test/clientgo/go.mod, the wrapper module: v0.37.1, client-go of the control plane's 1.37.1)
#   - informer: test/clientgo/informer, a plain client-go dynamic informer
#   - typed: test/clientgo/typed, the typed clientsets (protobuf) step by step
#   - protobuf-messages: test/clientgo/protobuf-messages, which writes the table testenv decodes
#     protobuf bodies with (scripts/gen-protobuf-messages.sh) and its test samples
# and puts sample-controller's artifacts/examples/ (its CRDs and example-foo) beside them.
# Idempotent: the folder is named by a hash of test/clientgo/ (its .go files, go.mod, go.sum;
# test/support/assets.ts computes the same), so a checkout with other sources (a worktree
# sharing .cache/) builds beside it instead of over it; folders of other hashes unused for a
# day are removed. Go's
# module and build caches are .cache/go/, shared with scripts/ensure-control-plane.sh (the
# client-go packages are built already). Cold: about 20 s on 2 cores after the control plane,
# about 11 minutes with nothing cached (downloads included, 2 busy cores); cached: under a second.
# The last line of standard output is the bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once ensure-go-clients
root=$PWD

src="$root/test/clientgo"

export GOMODCACHE=${GOMODCACHE_CRDGEN:-$root/.cache/go/mod}
export GOCACHE=${GOCACHE_CRDGEN:-$root/.cache/go/build}
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
export GOTOOLCHAIN=local

log() { echo "ensure-go-clients: $*" >&2; }

stamp=$(cd "$src" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
bin="$root/.cache/go-clients/$stamp/bin"
mkdir -p "$bin"
if [ -x "$bin/sample-controller" ] && [ -x "$bin/informer" ] && [ -x "$bin/typed" ] && [ -x "$bin/protobuf-messages" ] && [ -f "$bin/examples/crd.yaml" ] &&
  [ "$(cat "$bin/.stamp" 2>/dev/null)" = "$stamp" ]; then
  log "sample-controller, informer, typed and protobuf-messages already built ($bin)"
  echo "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is not on PATH: install Go 1.26 or newer"; exit 1; }
version=$(awk '$1 == "k8s.io/sample-controller" {print $2; exit}' "$src/go.mod")
log "building k8s.io/sample-controller $version and test/clientgo/{informer,typed,protobuf-messages} from the Go module proxy"
started=$(date +%s)
(cd "$src" && go mod download k8s.io/sample-controller)
for target in k8s.io/sample-controller:sample-controller ./informer:informer ./typed:typed ./protobuf-messages:protobuf-messages; do
  pkg=${target%%:*}
  out=${target##*:}
  t0=$(date +%s)
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$bin/$out.tmp" "$pkg")
  mv "$bin/$out.tmp" "$bin/$out"
  log "built $out in $(($(date +%s) - t0)) s"
done
examples="$(cd "$src" && go list -m -f '{{.Dir}}' k8s.io/sample-controller)/artifacts/examples"
rm -rf "$bin/examples"
mkdir -p "$bin/examples"
cp "$examples"/*.yaml "$bin/examples/"
chmod u+w "$bin/examples"/*.yaml
echo "$stamp" >"$bin/.stamp"
find "$root/.cache/go-clients" -mindepth 1 -maxdepth 1 -type d ! -name "$stamp" -mtime +0 -exec rm -rf {} + 2>/dev/null || true
log "done in $(($(date +%s) - started)) s"
echo "$bin"
