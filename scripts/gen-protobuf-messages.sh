#!/usr/bin/env bash
# Writes the table crdgen/testing decodes Kubernetes protobuf request bodies with,
# schema/kubernetes/<version>/protobuf-messages.json, and the samples its unit test checks the
# decoder against, test/testing/fixtures/protobuf-samples.json (objects encoded by client-go's
# protobuf serializer and what Go's encoding/json writes for them once decoded). Both come from
# the Go types of k8s.io/api, apimachinery and apiextensions-apiserver at the versions of
# test/clientgo/go.mod, read by test/clientgo/protobuf-messages (built by
# scripts/ensure-go-clients.sh). Run it after changing those versions or the kinds testenv serves.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(./scripts/ensure-go-clients.sh | tail -n 1)
K8S_VERSION=${CRDGEN_K8S_VERSION:-v1.37.1}
api=$(awk '$1 == "k8s.io/api" {print $2; exit}' test/clientgo/go.mod)
ext=$(awk '$1 == "k8s.io/apiextensions-apiserver" {print $2; exit}' test/clientgo/go.mod)
out="schema/kubernetes/$K8S_VERSION/protobuf-messages.json"
"$bin/protobuf-messages" -table -source "k8s.io/api $api, k8s.io/apiextensions-apiserver $ext (scripts/gen-protobuf-messages.sh)" >"$out.tmp"
mv "$out.tmp" "$out"
"$bin/protobuf-messages" -samples >test/testing/fixtures/protobuf-samples.json.tmp
mv test/testing/fixtures/protobuf-samples.json.tmp test/testing/fixtures/protobuf-samples.json
echo "wrote $out and test/testing/fixtures/protobuf-samples.json"
