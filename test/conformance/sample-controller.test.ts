// Conformance: client-go's own example operator, k8s.io/sample-controller v0.37.1 (built
// unmodified from the Go module proxy by the test set-up), against `crdgen testenv` and the real
// control plane. Its CRD and example-foo are applied with kubectl 1.37; sample-controller
// creates the Deployment (client-go sends it in protobuf), writes Foo's status from the
// Deployment's (testenv's workload simulator; kube-controller-manager + kwok on the real one),
// follows a scale-up, and deleting the Foo garbage-collects the Deployment. With the CRD that
// has no status subresource, its UpdateStatus is refused alike by both.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { goClientsBin, kubectlReal } from '../support/assets.js';
import { BACKENDS } from '../support/backends.js';

const WAIT_MS = 120000; // conditions on a busy 2-core machine (the real controllers and kwok included)

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

class Cluster {
  constructor(
    readonly server: ApiServerHandle,
    readonly dir: string,
  ) {}

  kubectl(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        kubectlReal(),
        [`--kubeconfig=${this.server.kubeconfigPath}`, `--cache-dir=${join(this.dir, 'kube-cache')}`, ...args],
        { env: { PATH: process.env.PATH, HOME: this.dir }, timeout: 60000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async json(...args: string[]): Promise<any> {
    const r = await this.kubectl('get', ...args, '-o', 'json');
    if (r.code !== 0) {
      if (/NotFound|not found/.test(r.stderr)) return undefined;
      throw new Error(`kubectl get ${args.join(' ')}: ${r.stderr}`);
    }
    return JSON.parse(r.stdout);
  }
}

/** Polls until `fn` returns a value that is not undefined/false; the failure says what was last seen. */
async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  last: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS / 1000} s. ${last()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

class SampleController {
  readonly child: ChildProcess;
  log = '';
  readonly exited: Promise<number | null>;
  constructor(kubeconfig: string) {
    this.child = spawn(join(goClientsBin(), 'sample-controller'), [`-kubeconfig=${kubeconfig}`, '-v=2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (c: Buffer) => (this.log += c.toString()));
    this.child.stderr!.on('data', (c: Buffer) => (this.log += c.toString()));
    this.exited = new Promise((r) => this.child.on('exit', (code) => r(code)));
  }
  tail(): string {
    return `sample-controller log:\n${this.log.split('\n').slice(-30).join('\n')}`;
  }
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** A Deployment spec without what the server fills from the clock or its counters. */
const specOf = (d: any): unknown => d.spec;

const specs = new Map<string, unknown>();

describe('k8s.io/sample-controller against testenv and the real control plane', () => {
  for (const backend of BACKENDS) {
    describe(backend.name, () => {
      let c: Cluster;
      let sc: SampleController | undefined;
      const examples = (): string => join(goClientsBin(), 'examples');
      before(async () => {
        const dir = mkdtempSync(join(tmpdir(), 'crdgen-sample-controller-'));
        c = new Cluster(await backend.start({ workloads: true }), dir);
      });
      after(async () => {
        await sc?.stop();
        await c?.server.stop();
        if (c) rmSync(c.dir, { recursive: true, force: true });
      });

      it('kubectl applies the CRD (with the status subresource) and example-foo', { timeout: 300000 }, async () => {
        const crd = await c.kubectl('apply', '-f', join(examples(), 'crd-status-subresource.yaml'));
        assert.equal(crd.code, 0, crd.stderr);
        assert.match(crd.stdout, /customresourcedefinition.apiextensions.k8s.io\/foos.samplecontroller.k8s.io created/);
        const est = await c.kubectl(
          'wait',
          '--for=condition=Established',
          '--timeout=120s',
          'crd/foos.samplecontroller.k8s.io',
        );
        assert.equal(est.code, 0, est.stderr);
        const foo = await until('example-foo applied', async () => {
          const r = await c.kubectl('apply', '-f', join(examples(), 'example-foo.yaml'));
          return r.code === 0 ? r : undefined;
        });
        assert.match(foo.stdout, /foo.samplecontroller.k8s.io\/example-foo created/);
      });

      it('sample-controller creates the Deployment, owned by the Foo', { timeout: 300000 }, async () => {
        sc = new SampleController(c.server.kubeconfigPath);
        const foo = await c.json('foo', 'example-foo');
        const dep = await until(
          'the Deployment example-foo',
          () => c.json('deployment', 'example-foo'),
          () => sc!.tail(),
        );
        assert.deepEqual(dep.metadata.ownerReferences, [
          {
            apiVersion: 'samplecontroller.k8s.io/v1alpha1',
            kind: 'Foo',
            name: 'example-foo',
            uid: foo.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        assert.equal(dep.spec.replicas, 1);
        assert.deepEqual(dep.spec.selector, { matchLabels: { app: 'nginx', controller: 'example-foo' } });
        assert.equal(dep.spec.template.spec.containers[0].image, 'nginx:latest');
        specs.set(backend.name, specOf(dep));
      });

      it("writes Foo's status from the Deployment's availableReplicas", { timeout: 300000 }, async () => {
        await until(
          'Foo status.availableReplicas = 1',
          async () => (await c.json('foo', 'example-foo'))?.status?.availableReplicas === 1,
          () => sc!.tail(),
        );
      });

      it('follows a scale-up of the Foo: Deployment replicas and Foo status 2', { timeout: 300000 }, async () => {
        const p = await c.kubectl('patch', 'foo', 'example-foo', '--type=merge', '-p', '{"spec":{"replicas":2}}');
        assert.equal(p.code, 0, p.stderr);
        await until(
          'Deployment spec.replicas = 2',
          async () => (await c.json('deployment', 'example-foo'))?.spec?.replicas === 2,
          () => sc!.tail(),
        );
        await until(
          'Foo status.availableReplicas = 2',
          async () => (await c.json('foo', 'example-foo'))?.status?.availableReplicas === 2,
          () => sc!.tail(),
        );
      });

      it('deleting the Foo garbage-collects its Deployment', { timeout: 300000 }, async () => {
        const d = await c.kubectl('delete', 'foo', 'example-foo', '--wait=true', '--timeout=120s');
        assert.equal(d.code, 0, d.stderr);
        // sample-controller may re-create the Deployment once before it sees the Foo gone; the
        // garbage collector removes that one too (its owner's uid no longer exists)
        for (let quiet = 0; quiet < 2;) {
          await until(
            'the Deployment gone',
            async () => (await c.json('deployment', 'example-foo')) === undefined,
            () => sc!.tail(),
          );
          await new Promise((r) => setTimeout(r, 3000));
          quiet = (await c.json('deployment', 'example-foo')) === undefined ? quiet + 1 : 0;
        }
        assert.match(sc!.log, /Successfully synced/);
      });

      it('stops on SIGTERM with exit code 0', { timeout: 60000 }, async () => {
        assert.equal(await sc!.stop(), 0, sc!.tail());
      });

      it(
        'with the CRD without a status subresource, UpdateStatus is refused (404) and Foo has no status',
        { timeout: 300000 },
        async () => {
          const del = await c.kubectl('delete', 'crd', 'foos.samplecontroller.k8s.io', '--wait=true', '--timeout=120s');
          assert.equal(del.code, 0, del.stderr);
          const crd = await until('crd.yaml applied', async () => {
            const r = await c.kubectl('apply', '-f', join(examples(), 'crd.yaml'));
            return r.code === 0 ? r : undefined;
          });
          assert.match(crd.stdout, /created/);
          await until(
            'example-foo applied',
            async () => (await c.kubectl('apply', '-f', join(examples(), 'example-foo.yaml'))).code === 0,
          );
          sc = new SampleController(c.server.kubeconfigPath);
          await until(
            'the Deployment example-foo',
            () => c.json('deployment', 'example-foo'),
            () => sc!.tail(),
          );
          await until(
            'UpdateStatus refused with 404',
            async () =>
              /Error syncing; requeuing for later retry" err="foos\.samplecontroller\.k8s\.io \\"example-foo\\" not found"/.test(
                sc!.log,
              ),
            () => sc!.tail(),
          );
          assert.equal((await c.json('foo', 'example-foo')).status, undefined);
          assert.equal(await sc.stop(), 0, sc.tail());
        },
      );
    });
  }

  it('the Deployment sample-controller sent (in protobuf) was stored alike by testenv and kube-apiserver', () => {
    assert.ok(specs.has('testenv') && specs.has('real'), 'both backends ran');
    assert.deepEqual(specs.get('testenv'), specs.get('real'));
  });
});
