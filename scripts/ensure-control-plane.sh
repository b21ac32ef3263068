#!/usr/bin/env bash
# Builds (once) and caches a real Kubernetes control plane from Go modules:
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok
# under .cache/control-plane/<version>/bin/. The last line of standard output is that
# bin directory (for KUBEBUILDER_ASSETS / `crdgen testenv --real --assets DIR`).
#
# No prebuilt binaries: everything comes from the Go module proxy.
# - k8s.io/kubernetes cannot be `go install`ed (its go.mod replaces the staging modules with
#   ./staging/... paths), so a wrapper module requires it and replaces each staging module
#   k8s.io/<name> with k8s.io/<name> v0.<minor>.<patch>.
# - etcd 3.6: a wrapper main that calls go.etcd.io/etcd/server/v3/etcdmain.
# - kwok: sigs.k8s.io/kwok/cmd/kwok in a wrapper module of its own (its Kubernetes
#   libraries are older than the control plane's, so it cannot share one module).
# Idempotent: a binary that is present with its stamp is not rebuilt. Go's module and build
# caches live under .cache/go/ too, so a CI cache of .cache/ makes a warm run take seconds.
# Cold, on 2 cores: about 12 minutes (downloads included); warm: under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once ensure-control-plane
root=$PWD

K8S_VERSION=${CRDGEN_K8S_VERSION:-v1.37.1}
ETCD_VERSION=${CRDGEN_ETCD_VERSION:-v3.6.16}
KWOK_VERSION=${CRDGEN_KWOK_VERSION:-v0.8.0}

minor=${K8S_VERSION#v1.}
staging_version="v0.${minor}" # v1.37.1 -> v0.37.1
major_minor=${minor%%.*}

dest="$root/.cache/control-plane/$K8S_VERSION"
bin="$dest/bin"
work="$dest/src"
mkdir -p "$bin" "$work"

export GOMODCACHE=${GOMODCACHE_CRDGEN:-$root/.cache/go/mod}
export GOCACHE=${GOCACHE_CRDGEN:-$root/.cache/go/build}
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
export GOTOOLCHAIN=local

log() { echo "ensure-control-plane: $*" >&2; }

command -v go >/dev/null 2>&1 || { log "go is not on PATH: install Go 1.26 or newer"; exit 1; }

stamp_ok() { # name expected-stamp
  [ -x "$bin/$1" ] && [ -f "$bin/.$1.stamp" ] && [ "$(cat "$bin/.$1.stamp")" = "$2" ]
}
mark() { echo "$2" >"$bin/.$1.stamp"; }

started=$(date +%s)
built=()

# ---------------------------------------------------------------- kubernetes
k8s_stamp="k8s.io/kubernetes@$K8S_VERSION"
need_k8s=()
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  stamp_ok "$b" "$k8s_stamp" || need_k8s+=("$b")
done
if [ ${#need_k8s[@]} -gt 0 ]; then
  log "building ${need_k8s[*]} $K8S_VERSION from the Go module proxy (cold: about 10 minutes on 2 cores)"
  mod="$work/kubernetes"
  mkdir -p "$mod"
  if [ ! -f "$mod/go.sum" ] || ! grep -q "k8s.io/kubernetes $K8S_VERSION" "$mod/go.mod" 2>/dev/null; then
    upstream_mod=$(mktemp)
    # -json reports a failure only in its output's Error field: say it, and try again (a cold CI
    # run once stopped here with exit 1 and no message)
    for attempt in 1 2 3; do
      if dl=$(cd "$mod" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" 2>&1); then break; fi
      log "go mod download k8s.io/kubernetes@$K8S_VERSION failed (attempt $attempt of 3): $(printf '%s\n' "$dl" | grep -m1 -E '"Error"|error' || printf '%s' "$dl" | tail -n 1)"
      [ "$attempt" = 3 ] && exit 1
      sleep $((attempt * 5))
    done
    cp "$GOMODCACHE/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod" "$upstream_mod"
    {
      echo "module crdgen.local/control-plane"
      echo
      echo "go $(awk '/^go /{print $2; exit}' "$upstream_mod")"
      echo
      echo "require k8s.io/kubernetes $K8S_VERSION"
      echo
      echo "replace ("
      # every `k8s.io/<name> => ./staging/src/k8s.io/<name>` becomes a module version
      awk -v v="$staging_version" '$2 == "=>" && $3 ~ /^\.\/staging\// {print "\t" $1 " => " $1 " " v}' "$upstream_mod"
      echo ")"
    } >"$mod/go.mod"
    rm -f "$upstream_mod"
    cat >"$mod/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF
    (cd "$mod" && go mod tidy -e >/dev/null 2>"$mod/tidy.log" || { cat "$mod/tidy.log" >&2; exit 1; })
  fi
  build_date=$(date -u -d @0 +%Y-%m-%dT%H:%M:%SZ)
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$major_minor"
    ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
  done
  for b in "${need_k8s[@]}"; do
    t0=$(date +%s)
    (cd "$mod" && go build -trimpath -ldflags "$ldflags" -o "$bin/$b.tmp" "k8s.io/kubernetes/cmd/$b")
    mv "$bin/$b.tmp" "$bin/$b"
    mark "$b" "$k8s_stamp"
    built+=("$b")
    log "built $b in $(($(date +%s) - t0)) s"
  done
fi

# ---------------------------------------------------------------- etcd
etcd_stamp="go.etcd.io/etcd/server/v3@$ETCD_VERSION"
if ! stamp_ok etcd "$etcd_stamp"; then
  log "building etcd $ETCD_VERSION"
  mod="$work/etcd"
  mkdir -p "$mod"
  cat >"$mod/go.mod" <<EOF
module crdgen.local/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
EOF
  cat >"$mod/main.go" <<'EOF'
// etcd, as the etcd repository's own main.go starts it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  (cd "$mod" && go mod tidy >/dev/null 2>"$mod/tidy.log" || { cat "$mod/tidy.log" >&2; exit 1; })
  t0=$(date +%s)
  (cd "$mod" && go build -trimpath -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" -o "$bin/etcd.tmp" .)
  mv "$bin/etcd.tmp" "$bin/etcd"
  mark etcd "$etcd_stamp"
  built+=(etcd)
  log "built etcd in $(($(date +%s) - t0)) s"
fi

# ---------------------------------------------------------------- kwok
kwok_stamp="sigs.k8s.io/kwok@$KWOK_VERSION"
if ! stamp_ok kwok "$kwok_stamp"; then
  log "building kwok $KWOK_VERSION"
  mod="$work/kwok"
  mkdir -p "$mod"
  cat >"$mod/go.mod" <<EOF
module crdgen.local/kwok

go 1.26.0

require sigs.k8s.io/kwok $KWOK_VERSION
EOF
  cat >"$mod/tools.go" <<'EOF'
//go:build tools

package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
EOF
  (cd "$mod" && go mod tidy >/dev/null 2>"$mod/tidy.log" || { cat "$mod/tidy.log" >&2; exit 1; })
  t0=$(date +%s)
  (cd "$mod" && go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" -o "$bin/kwok.tmp" sigs.k8s.io/kwok/cmd/kwok)
  mv "$bin/kwok.tmp" "$bin/kwok"
  mark kwok "$kwok_stamp"
  built+=(kwok)
  log "built kwok in $(($(date +%s) - t0)) s"
fi

# kwok's stages, as kwokctl configures them by default (node-fast + heartbeat, pod-fast), from
# the kwok module itself: startControlPlane() passes this file to kwok --config.
stages_stamp="$kwok_stamp stages"
if [ ! -f "$bin/kwok-stages.yaml" ] || [ "$(cat "$bin/.kwok-stages.stamp" 2>/dev/null)" != "$stages_stamp" ]; then
  src=$(cd "$work/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    echo "# kwok's default stages (kwokctl's defaults), from sigs.k8s.io/kwok@$KWOK_VERSION kustomize/stage/"
    for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
      echo "---"
      cat "$src/kustomize/stage/$f"
    done
  } >"$bin/kwok-stages.yaml.tmp"
  mv "$bin/kwok-stages.yaml.tmp" "$bin/kwok-stages.yaml"
  echo "$stages_stamp" >"$bin/.kwok-stages.stamp"
fi

if [ ${#built[@]} -gt 0 ]; then
  log "built ${built[*]} in $(($(date +%s) - started)) s"
else
  log "control plane $K8S_VERSION already built"
fi
echo "$bin"
