// Conformance: Debian's Kubernetes Python client (python3-kubernetes 22.6, unpacked by the test
// set-up, run by /usr/bin/python3) used as a new user would — typed objects without
// apiVersion/kind, plain dicts, the custom-objects API, the dynamic client and watches — against
// `crdgen testenv` and the real kube-apiserver. Every step must answer the same on both, and as
// listed here (test/conformance/python/client_flows.py prints one JSON line per step).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { pythonKubernetesPath } from '../support/assets.js';
import { BACKENDS } from '../support/backends.js';

const SCRIPT = fileURLToPath(new URL('./python/client_flows.py', import.meta.url));

/** sample-controller's Foo, with the status subresource (artifacts/examples/crd-status-subresource.yaml). */
const FOO_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'foos.samplecontroller.k8s.io',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental-only' },
  },
  spec: {
    group: 'samplecontroller.k8s.io',
    names: { kind: 'Foo', plural: 'foos' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  deploymentName: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10 },
                },
              },
              status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
} as KubeObject;

interface Step {
  step: string;
  status: number;
  reason?: string;
  message?: string;
  value: unknown;
}

const ok = (value: unknown): Partial<Step> => ({ status: 200, value });
const fail = (status: number, reason: string, message: string): Partial<Step> => ({
  status,
  reason,
  message,
  value: null,
});
const pyBody = (name: string): string =>
  `{"metadata": {"name": "${name}"}, "spec": {"deploymentName": "${name}", "replicas": 1}}`;

/** What each step answers (read from kube-apiserver v1.37.1), flow by flow, in order. */
const EXPECTED: Record<string, Record<string, Partial<Step>>> = {
  typed: {
    'create configmap': ok(['ConfigMap', 'v1', { a: '1' }]),
    'read configmap': ok({ a: '1' }),
    'list by label': ok(['typed-cm']),
    'json patch': ok({ a: '1', b: '2' }),
    'replace configmap': ok({ a: '1', b: '2', c: '3' }),
    'replace with a stale resourceVersion': fail(
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "typed-cm": the object has been modified; please apply your changes to the latest version and try again',
    ),
    'create it again': fail(409, 'AlreadyExists', 'configmaps "typed-cm" already exists'),
    'create secret': ok({ k: 'dg==' }),
    'create deployment': ok(['Deployment', 2, 'RollingUpdate']),
    'read deployment scale': ok(2),
    'patch deployment scale': ok(3),
    'create namespace': ok('Active'),
    'delete configmap': ok('Success'),
    'delete deployment in the foreground': ok([200, 'Deployment', ['foregroundDeletion']]),
    'read deleted configmap': fail(404, 'NotFound', 'configmaps "typed-cm" not found'),
  },
  dict: {
    'create configmap from a dict': ok({ x: 'y' }),
    'create with kind only': ok('ConfigMap'),
    'create with the wrong kind': fail(
      400,
      'BadRequest',
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    ),
    'create with the wrong version': fail(
      400,
      'BadRequest',
      'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"',
    ),
    'replace from a dict': ok({ x: 'z' }),
    'create namespace from a dict': ok('dict-ns'),
    'delete with a dict of options': ok('Success'),
  },
  custom: {
    'create foo': ok({ deploymentName: 'custom-foo', replicas: 1 }),
    'create foo without kind': fail(
      400,
      'BadRequest',
      `the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '${pyBody('custom-nokind')}' (${pyBody('custom-nokind').slice(0, 30)} ...)`,
    ),
    'create invalid foo': fail(
      422,
      'Invalid',
      'Foo.samplecontroller.k8s.io "custom-bad" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    ),
    'get foo': ok(1),
    'list foos': ok(['custom-foo']),
    'list foos in all namespaces': ok('FooList'),
    'merge patch foo': ok(2),
    'patch status': ok({ availableReplicas: 2 }),
    'replace foo': ok(3),
    'delete foo': ok('Status'),
    'delete foo kept by a finalizer': ok([200, 'Foo', ['example.com/keep']]),
    'get deleted foo': fail(404, 'NotFound', 'foos.samplecontroller.k8s.io "custom-foo" not found'),
  },
  dynamic: {
    'discovered foos': ok(['foos', true, 'Foo']),
    'create foo': ok(1),
    'get foo': ok('dyn-foo'),
    'list foos': ok(['custom-kept', 'dyn-foo']),
    'patch foo': ok(4),
    'create configmap': ok('1'),
    'strategic patch configmap': ok({ d: '1', e: '2' }),
    'delete foo': ok('Status'),
    'create watched foo': ok('dyn-watched'),
    'dynamic watch events': ok([
      ['ADDED', 'custom-kept'],
      ['ADDED', 'dyn-watched'],
    ]),
  },
  watch: {
    'typed watch events': ok([
      ['ADDED', 'watch-cm', { n: '1' }],
      ['MODIFIED', 'watch-cm', { n: '2' }],
      ['DELETED', 'watch-cm', { n: '2' }],
    ]),
    'custom watch events': ok([
      ['ADDED', 'watch-foo'],
      ['MODIFIED', 'watch-foo'],
    ]),
    'watch with bookmarks allowed': ok(['ADDED']),
    'list call with watch=True': ok(['ADDED', 'ConfigMap', 'watch-cm']),
  },
};

function runFlow(kubeconfig: string, flow: string, home: string): Promise<Step[]> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/python3',
      [SCRIPT, kubeconfig, flow],
      {
        env: { PATH: process.env.PATH, HOME: home, PYTHONPATH: pythonKubernetesPath(), PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 240000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`python flow ${flow} failed: ${err.message}\n${stderr}\n${stdout}`));
        else
          resolve(
            stdout
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Step),
          );
      },
    );
  });
}

const answers = new Map<string, Map<string, Step[]>>();

describe('the Python client (python3-kubernetes) against testenv and the real apiserver', () => {
  for (const backend of BACKENDS) {
    describe(backend.name, () => {
      let server: ApiServerHandle;
      let home: string;
      before(async () => {
        home = mkdtempSync(join(tmpdir(), 'crdgen-python-'));
        server = await backend.start({ crds: [FOO_CRD] });
        answers.set(backend.name, new Map());
      });
      after(async () => {
        await server?.stop();
        if (home) rmSync(home, { recursive: true, force: true });
      });

      for (const [flow, expected] of Object.entries(EXPECTED)) {
        it(`${flow}: every step answers as listed`, { timeout: 300000 }, async () => {
          const steps = await runFlow(server.kubeconfigPath, flow, home);
          answers.get(backend.name)!.set(flow, steps);
          assert.deepEqual(
            steps.map((s) => s.step),
            Object.keys(expected),
            'the flow ran every step',
          );
          for (const s of steps) assert.deepEqual(pick(s, expected[s.step]), expected[s.step], `${flow} / ${s.step}`);
        });
      }
    });
  }

  it('testenv answered every step exactly as kube-apiserver did', () => {
    const t = answers.get('testenv');
    const r = answers.get('real');
    assert.ok(t && r, 'both backends ran');
    for (const flow of Object.keys(EXPECTED)) assert.deepEqual(t.get(flow), r.get(flow), flow);
  });
});

function pick(s: Step, like: Partial<Step>): Partial<Step> {
  const out: Partial<Step> = {};
  for (const k of Object.keys(like) as (keyof Step)[]) (out as Record<string, unknown>)[k] = s[k];
  return out;
}
