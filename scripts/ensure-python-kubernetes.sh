#!/usr/bin/env bash
# Puts Debian's Kubernetes Python client (python3-kubernetes) and the Python packages it
# depends on under .cache/python-kubernetes/, without installing anything: apt-get download +
# dpkg-deb -x, as scripts/ensure-kubectl.sh does for kubectl. The suites run /usr/bin/python3
# with PYTHONPATH=.cache/python-kubernetes/usr/lib/python3/dist-packages.
# Idempotent: does nothing once the client is unpacked (and imported once, when unpacked).
# The last line of standard output is that PYTHONPATH folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lock.sh
lock_once ensure-python-kubernetes
dest=.cache/python-kubernetes
site="$PWD/$dest/usr/lib/python3/dist-packages"
python=/usr/bin/python3

log() { echo "ensure-python-kubernetes: $*" >&2; }

[ -x "$python" ] || { log "$python is missing: install Debian's python3"; exit 1; }
if [ -f "$dest/.stamp" ] && [ -f "$site/kubernetes/__init__.py" ]; then
  log "$(cat "$dest/.stamp") already unpacked"
  echo "$site"
  exit 0
fi

# python3-kubernetes and every Python package it needs (the interpreter and its standard
# library come from the system).
deps() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances python3-kubernetes 2>/dev/null |
    grep -E '^python3-[a-z0-9]' |
    grep -vxE 'python3-(minimal|distutils|lib2to3|venv|dev|all)' | LC_ALL=C sort -u
}
pkgs=$(deps)
if ! grep -qx python3-kubernetes <<<"$pkgs"; then
  log "apt-cache knows no python3-kubernetes: running apt-get update"
  if [ "$(id -u)" = 0 ]; then apt-get update >/dev/null; else sudo apt-get update >/dev/null; fi
  pkgs=$(deps)
fi
grep -qx python3-kubernetes <<<"$pkgs" || { log "no python3-kubernetes package in the Debian archive"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
log "downloading $(wc -w <<<"$pkgs") Debian packages (apt-get download): $(tr '\n' ' ' <<<"$pkgs")"
# shellcheck disable=SC2086
if ! (cd "$work" && apt-get download $pkgs >/dev/null 2>"$work/download.log"); then
  if [ "$(id -u)" = 0 ]; then apt-get update >/dev/null; else sudo apt-get update >/dev/null; fi
  # shellcheck disable=SC2086
  (cd "$work" && apt-get download $pkgs >/dev/null 2>"$work/download.log") || { cat "$work/download.log" >&2; exit 1; }
fi
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
version=$(PYTHONPATH="$site" "$python" -c 'import kubernetes; print(kubernetes.__version__)') || {
  log "the unpacked client does not import"
  exit 1
}
echo "python3-kubernetes $version ($(ls "$work"/*.deb | wc -l) packages)" >"$dest/.stamp"
log "unpacked $(cat "$dest/.stamp") into $dest"
echo "$site"
