// etcd for the etcd-backed suites: the etcd 3.6 built with the control plane by npm test's
// set-up. A missing etcd FAILS the suite (with the command that builds it).
import { findEtcd, startEtcd } from '../../src/testing/storage/etcd-server.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { etcdBinary } from '../support/assets.js';

let found: { binary: string; version: string } | undefined;
function etcd(): { binary: string; version: string } {
  found ??= findEtcd(etcdBinary());
  if (!found) throw new Error(`${etcdBinary()} does not run`);
  return found;
}

/** The version line of the etcd binary the suites run. */
export function etcdVersion(): string {
  return etcd().version;
}

/** Starts an etcd on free ports with a temporary data dir (stop it in `after`). */
export function startTestEtcd(): Promise<EtcdProcess> {
  return startEtcd({ binary: etcd().binary });
}
