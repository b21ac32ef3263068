#!/usr/bin/env bash
# Installs Debian's etcd-server (etcd 3.4) for the etcd-backed suites (test/etcd).
# Idempotent: does nothing when `etcd` is already on PATH. The tests start their own
# etcd on free ports with a temporary data dir; the package's service is not needed.
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then
  echo "ensure-etcd: $(command -v etcd) already present ($(etcd --version 2>/dev/null | head -n1))"
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "ensure-etcd: etcd is not installed and we are not root (no sudo): install Debian's etcd-server" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update >/dev/null
$sudo apt-get install -y --no-install-recommends etcd-server >/dev/null
command -v etcd >/dev/null 2>&1 || { echo "ensure-etcd: etcd-server installed but no etcd on PATH" >&2; exit 1; }
echo "ensure-etcd: installed $(etcd --version 2>/dev/null | head -n1)"
