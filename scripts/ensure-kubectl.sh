#!/usr/bin/env bash
# Puts Debian's kubectl (package kubernetes-client, kubectl 1.20) under .cache/kubectl-1.20/
# for the conformance tests, without installing the package (it conflicts with other
# kubectl installs). Idempotent: does nothing when the binary is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once ensure-kubectl
dest=.cache/kubectl-1.20
bin="$dest/usr/bin/kubectl"
if [ -x "$bin" ]; then
  echo "ensure-kubectl: $bin already present"
  exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download kubernetes-client >/dev/null 2>&1); then
  if [ "$(id -u)" = 0 ]; then
    apt-get update >/dev/null
  else
    sudo apt-get update >/dev/null
  fi
  (cd "$work" && apt-get download kubernetes-client >/dev/null)
fi
deb=$(ls "$work"/kubernetes-client_*.deb | head -n1)
dpkg-deb -x "$deb" "$dest"
"$bin" version --client >/dev/null 2>&1 || { echo "ensure-kubectl: $bin does not run" >&2; exit 1; }
echo "ensure-kubectl: installed $("$bin" version --client --short 2>/dev/null || echo kubectl) at $bin"
