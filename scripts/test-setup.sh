#!/usr/bin/env bash
# npm test's own set-up, run by scripts/run-tests.mjs before any test: everything the suites
# drive that is not an npm package, fetched or built once and cached under .cache/.
#   - Debian's kubectl 1.20 (apt-get download + dpkg-deb -x, no install): the old-client
#     conformance tests.
#   - The real control plane (scripts/ensure-control-plane.sh): etcd 3.6, kube-apiserver,
#     kube-controller-manager, kube-scheduler, kubectl and kwok, built from the Go module
#     proxy. Cold: about 10 minutes on 2 cores; cached: under a second.
#   - The Go clients (scripts/ensure-go-clients.sh): k8s.io/sample-controller and a plain
#     client-go dynamic informer (test/clientgo/), built from the Go module proxy after the
#     control plane (whose caches they share): about 20 s cold.
#   - Debian's Python client, python3-kubernetes, and its Python dependencies
#     (scripts/ensure-python-kubernetes.sh: apt-get download + dpkg-deb -x, no install):
#     under 10 s cold.
# The last line of standard output is the control plane's bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-kubectl.sh >&2
bin=$(./scripts/ensure-control-plane.sh | tail -n 1)
./scripts/ensure-go-clients.sh >&2
./scripts/ensure-python-kubernetes.sh >&2
echo "$bin"
