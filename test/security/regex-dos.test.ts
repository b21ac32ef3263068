// Patterns that make a backtracking engine run in exponential time (`^(a+)+$` and its kind) cannot
// stall crdgen: a 10,000-character adversarial value goes through a generated validator (OpenAPI
// `pattern` and CEL `matches()`), a validating admission webhook (the runtime's webhook server
// with the generated validator, as generated webhooks serve it) called by the test server, and
// the test server's own CRD validation — with every core busy (a busy-loop process per core runs
// while it measures). Each answers within the bound below; a backtracking engine would not answer at
// all (it doubles its time with each character from about 25 on).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { validators } from '../../src/generate/validators.js';
import { type KubeObject, startWebhookServer, validatingHandler, type WebhookServer } from '../../src/runtime/index.js';
import type { FieldError } from '../../src/runtime/validation/index.js';
import { startTestApiServer, type ApiServerHandle } from '../../src/testing/index.js';
import { ROOT, writeTree } from '../golden/support.js';
import { raw } from '../support/raw.js';

/** Catastrophic for backtracking, each with a 10,000-character value it does not match. */
const CASES: { pattern: string; value: string }[] = [
  { pattern: '^(a+)+$', value: `${'a'.repeat(9_999)}!` },
  { pattern: '(a|aa)+$', value: `${'a'.repeat(9_999)}!` },
  { pattern: '(a*)*b', value: 'a'.repeat(10_000) },
  { pattern: '(x+x+)+y', value: 'x'.repeat(10_000) },
  { pattern: '^(\\w+\\s?)*$', value: `${'ab '.repeat(3_333)}!` },
  { pattern: '^([a-z]+|[a-z0-9]+)*-$', value: `${'a1'.repeat(4_999)}!!` },
  { pattern: '^(([a-z])+.)+[A-Z]([a-z])+$', value: `${'a'.repeat(9_999)}!` },
];
/**
 * The bound: generous (both cores busy, and other processes besides), yet nothing next to what
 * exponential time takes at 10,000 characters (a backtracking engine is past a second at ~25).
 */
const BOUND_MS = 10_000;

const field = (i: number) => `p${i}`;
const celField = (i: number) => `c${i}`;

function crd(plural: string, kind: string, checks: boolean): KubeObject {
  const props: Record<string, unknown> = {};
  CASES.forEach((c, i) => {
    props[field(i)] = { type: 'string', ...(checks ? { pattern: c.pattern } : {}) };
    props[celField(i)] = {
      type: 'string',
      maxLength: 20_000,
      ...(checks
        ? { 'x-kubernetes-validations': [{ rule: `self.matches(${JSON.stringify(c.pattern)})`, message: `rule ${i}` }] }
        : {}),
    };
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.dos.crdgen.dev` },
    spec: {
      group: 'dos.crdgen.dev',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
          },
        },
      ],
    },
  } as KubeObject;
}
const PROBES = crd('probes', 'Probe', true);
const PLAIN = crd('plainprobes', 'PlainProbe', false);

const obj = (kind: string, name: string, spec: Record<string, string>): KubeObject =>
  ({ apiVersion: 'dos.crdgen.dev/v1', kind, metadata: { name, namespace: 'default' }, spec }) as KubeObject;

/** Milliseconds `fn` takes (wall time). */
async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, result };
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

type Validate = (o: unknown, old?: unknown) => FieldError[];

describe('adversarial values against catastrophic patterns, every core busy', { timeout: 300_000 }, () => {
  const busy: ChildProcess[] = [];
  let dir = '';
  let validateProbe: Validate;
  let env: ApiServerHandle | undefined;
  let hooks: WebhookServer | undefined;

  before(async () => {
    // the generated validators of the Probe CRD, imported as an operator imports them
    const r = readCrdInputs([{ file: 'probes.yaml', content: stringify(PROBES) }]);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const files = validators(
      r.model,
      createEmitContext({ sources: r.model.sources, runtimeImport: join(ROOT, 'src', 'runtime', 'index.js') }),
    );
    dir = mkdtempSync(join(ROOT, '.tmp-regex-dos-'));
    writeTree(dir, files);
    const mod = (await import(pathToFileURL(join(dir, files[0].path)).href)) as Record<string, Validate>;
    validateProbe = mod.validateProbe;
    assert.equal(typeof validateProbe, 'function');

    // the test server with both CRDs, and a validating webhook on PlainProbes that runs the
    // generated Probe validator (PlainProbe's own schema has no patterns: the webhook is what checks)
    const certDir = join(dir, 'certs');
    const port = await freePort();
    const config = join(dir, 'webhooks.yaml');
    writeFileSync(
      config,
      stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'plainprobes' },
        webhooks: [
          {
            name: 'vplainprobe.dos.crdgen.dev',
            clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/validate' } },
            rules: [
              {
                operations: ['CREATE'],
                apiGroups: ['dos.crdgen.dev'],
                apiVersions: ['v1'],
                resources: ['plainprobes'],
              },
            ],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            timeoutSeconds: 30,
          },
        ],
      }),
    );
    env = await startTestApiServer({
      crds: [PROBES, PLAIN],
      webhooks: { configurations: [config], host: `127.0.0.1:${port}`, certDir },
    });
    hooks = await startWebhookServer({ bindAddress: `127.0.0.1:${port}`, certDir });
    hooks.admission(
      '/validate',
      validatingHandler(() => undefined, {
        kind: { group: 'dos.crdgen.dev', kind: 'PlainProbe' },
        schemaValidate: (o) => validateProbe(o),
      }),
    );

    // every core busy while the tests measure
    for (let i = 0; i < availableParallelism(); i++)
      busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    await new Promise((r) => setTimeout(r, 300));
    for (const b of busy) assert.equal(b.exitCode, null, 'a busy loop is running');
  });

  after(async () => {
    for (const b of busy) b.kill('SIGKILL');
    await hooks?.close();
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  CASES.forEach((c, i) => {
    it(`${c.pattern}: generated validator, OpenAPI pattern`, async () => {
      const { ms, result } = await timed(() => validateProbe(obj('Probe', 'x', { [field(i)]: c.value })));
      assert.equal(result.length, 1, JSON.stringify(result).slice(0, 300));
      assert.match(result[0].message, /should match/);
      assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    });

    it(`${c.pattern}: generated validator, CEL matches()`, async () => {
      const { ms, result } = await timed(() => validateProbe(obj('Probe', 'x', { [celField(i)]: c.value })));
      assert.equal(result.length, 1, JSON.stringify(result).slice(0, 300));
      assert.match(result[0].message, new RegExp(`rule ${i}$`));
      assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    });

    it(`${c.pattern}: the test server's CRD validation (pattern and CEL)`, async () => {
      const body = obj('Probe', `p${i}`, { [field(i)]: c.value, [celField(i)]: c.value });
      const { ms, result } = await timed(() =>
        raw(env!, 'POST', '/apis/dos.crdgen.dev/v1/namespaces/default/probes', { body, timeoutMs: 60_000 }),
      );
      assert.equal(result.status, 422, result.text.slice(0, 300));
      assert.equal(result.body.details.causes.length, 2, result.text.slice(0, 500));
      assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    });

    it(`${c.pattern}: a validating admission webhook called by the test server`, async () => {
      const body = obj('PlainProbe', `w${i}`, { [field(i)]: c.value, [celField(i)]: c.value });
      const { ms, result } = await timed(() =>
        raw(env!, 'POST', '/apis/dos.crdgen.dev/v1/namespaces/default/plainprobes', { body, timeoutMs: 60_000 }),
      );
      assert.equal(result.status, 422, result.text.slice(0, 300));
      assert.match(result.body.message, /admission webhook "vplainprobe\.dos\.crdgen\.dev" denied the request/);
      assert.match(result.body.message, /should match/);
      assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    });
  });
});
