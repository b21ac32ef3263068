// Conformance: client-go v0.37.1's typed clientsets (kubernetes and apiextensions, defaults
// unchanged: built-in kinds, DeleteOptions and Scale go in protobuf) step by step against
// testenv and the real kube-apiserver (test/clientgo/typed, built by the test set-up): namespaces,
// configmaps (binaryData, delete-collection), secrets (stringData), a Deployment with a full pod
// template (volumes, probes, env sources, security contexts, affinity, tolerations), its
// UpdateStatus and Scale, deletes with propagation policies, Leases with micro-times, both Event
// APIs and a CRD with a rich schema. Every step must answer the same on both — the typed result
// and the object read back as JSON.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { goClientsBin } from '../support/assets.js';
import { BACKENDS } from '../support/backends.js';

interface Step {
  step: string;
  status: number;
  reason?: string;
  message?: string;
  object?: unknown;
  raw?: unknown;
}

function run(kubeconfig: string): Promise<Step[]> {
  return new Promise((resolve, reject) => {
    execFile(
      join(goClientsBin(), 'typed'),
      [`-kubeconfig=${kubeconfig}`],
      { timeout: 300000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`typed failed: ${err.message}\n${stderr}\n${stdout.slice(-2000)}`));
        else
          resolve(
            stdout
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Step),
          );
      },
    );
  });
}

/** The steps that must fail, with their answer; every other step must succeed. */
const FAILING: Record<string, [number, string]> = {
  'update with a stale resourceVersion': [409, 'Conflict'],
  'create it again': [409, 'AlreadyExists'],
  'read deleted configmap': [404, 'NotFound'],
  'delete it again': [404, 'NotFound'],
  'update scale to -1': [422, 'Invalid'],
  'apply a conflicting value': [409, 'Conflict'],
};

const results = new Map<string, Step[]>();

describe('client-go typed clientsets (protobuf) against testenv and the real apiserver', () => {
  for (const backend of BACKENDS) {
    describe(backend.name, () => {
      let h: ApiServerHandle;
      before(async () => {
        h = await backend.start();
      });
      after(() => h?.stop());

      it('runs every step; only the expected ones fail', { timeout: 400000 }, async () => {
        const steps = await run(h.kubeconfigPath);
        results.set(backend.name, steps);
        assert.ok(steps.length >= 30, `ran ${steps.length} steps`);
        for (const s of steps) {
          const want = FAILING[s.step];
          if (want) assert.deepEqual([s.status, s.reason], want, `${s.step}: ${s.message ?? ''}`);
          else assert.equal(s.status, 0, `${s.step}: ${s.status} ${s.reason ?? ''} ${s.message ?? ''}`);
        }
        const dep = steps.find((s) => s.step === 'create deployment')!.raw as {
          spec: { template: { spec: { volumes: unknown[]; containers: { livenessProbe: unknown }[] } } };
        };
        assert.equal(dep.spec.template.spec.volumes.length, 3, 'the pod template arrived whole');
        assert.ok(dep.spec.template.spec.containers[0].livenessProbe);
      });
    });
  }

  it('testenv answered every step as kube-apiserver did (typed result and JSON read back)', () => {
    const t = results.get('testenv');
    const r = results.get('real');
    assert.ok(t && r, 'both backends ran');
    assert.deepEqual(
      t.map((s) => s.step),
      r.map((s) => s.step),
    );
    for (let i = 0; i < t.length; i++) assert.deepEqual(t[i], r[i], t[i].step);
  });
});
