#!/usr/bin/env bash
# Writes schema/kubernetes/<version>/typed-zero-objects.json: every built-in kind of the group
# versions in openapi-v3.json as its empty Go struct converts to unstructured content
# (k8s.io/api at the control plane's version). crdgen/testing's field manager compares a
# created built-in with it, as the apiserver's does, so fields the Go types always carry
# (`spec: {}`, `containers: null`) are not owned by the creator.
#   scripts/gen-typed-zero-objects.sh        (Go from PATH; modules from the proxy or .cache/go/mod)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
K8S_VERSION=${CRDGEN_K8S_VERSION:-v1.37.1}
staging="v0.${K8S_VERSION#v1.}"
export GOMODCACHE=${GOMODCACHE_CRDGEN:-$root/.cache/go/mod}
export GOCACHE=${GOCACHE_CRDGEN:-$root/.cache/go/build}
export GOFLAGS="-mod=mod -buildvcs=false"
export GOTOOLCHAIN=local
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp scripts/typed-zero-objects/main.go "$work/"
sed "s/v0\.37\.1/$staging/g" scripts/typed-zero-objects/go.mod >"$work/go.mod"
gvs=(v1 apps/v1 batch/v1 networking.k8s.io/v1 policy/v1 coordination.k8s.io/v1 events.k8s.io/v1 apiextensions.k8s.io/v1 autoscaling/v1 rbac.authorization.k8s.io/v1 admissionregistration.k8s.io/v1)
out="schema/kubernetes/$K8S_VERSION/typed-zero-objects.json"
(cd "$work" && go mod tidy >/dev/null 2>&1 && go run . "${gvs[@]}") >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
