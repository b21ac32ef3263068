#!/usr/bin/env bash
# npm test's own set-up, run by scripts/run-tests.mjs before any test: everything the suites
# drive that is not an npm package, fetched or built once and cached under .cache/.
#   - Debian's kubectl 1.20 (apt-get download + dpkg-deb -x, no install): the old-client
#     conformance tests.
#   - The real control plane (scripts/ensure-control-plane.sh): etcd 3.6, kube-apiserver,
#     kube-controller-manager, kube-scheduler, kubectl and kwok, built from the Go module
#     proxy. Cold: about 10 minutes on 2 cores; cached: under a second.
# The last line of standard output is the control plane's bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-kubectl.sh >&2
./scripts/ensure-control-plane.sh | tail -n 1
