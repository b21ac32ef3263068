// startControlPlane() for the benchmarks, retried when a port it picked was taken by another
// process before etcd or kube-apiserver bound it (other engineers' control planes run on this
// machine too).
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/testing/index.js';

export async function startRealControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startControlPlane(options);
    } catch (e) {
      if (attempt >= 3 || !/address already in use/.test((e as Error).message)) throw e;
    }
  }
}
