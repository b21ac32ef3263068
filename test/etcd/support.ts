// Finds etcd for the etcd-backed suites. Missing etcd FAILS the suite with a loud message
// (run scripts/ensure-etcd.sh); only CRDGEN_ALLOW_NO_ETCD=1 turns that into a loud skip.
import { findEtcd, startEtcd } from '../../src/testing/storage/etcd-server.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';

const found = findEtcd();
let warned = false;

/**
 * undefined when etcd is here; otherwise the skip reason (with CRDGEN_ALLOW_NO_ETCD=1).
 * Without that variable a missing etcd throws, which fails the test file.
 */
export function etcdSkipReason(): string | undefined {
  if (found) return undefined;
  const msg = 'etcd is not installed: run scripts/ensure-etcd.sh (Debian etcd-server); the etcd-backed suites cannot run';
  if (process.env.CRDGEN_ALLOW_NO_ETCD === '1') {
    if (!warned) process.stderr.write(`\n!!! ${msg} — SKIPPED because CRDGEN_ALLOW_NO_ETCD=1 !!!\n\n`);
    warned = true;
    return `${msg} (CRDGEN_ALLOW_NO_ETCD=1)`;
  }
  throw new Error(`${msg}. Set CRDGEN_ALLOW_NO_ETCD=1 to skip them deliberately.`);
}

/** The version line of the etcd binary found on PATH. */
export function etcdVersion(): string {
  return found?.version ?? 'none';
}

/** Starts an etcd on free ports with a temporary data dir (stop it in `after`). */
export function startTestEtcd(): Promise<EtcdProcess> {
  return startEtcd();
}
