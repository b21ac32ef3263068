// The Kubernetes OpenAPI v3 document of kube-apiserver v1.37.1 (schema/kubernetes/…: core,
// apps, batch, networking, policy, coordination, events, apiextensions, autoscaling, rbac,
// admissionregistration) as `crdgen generate` input: every generator's output compiles with
// `tsc --strict` as one program, and the output does not depend on the order of the
// document's schemas and paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOpenApiInputs } from '../../src/input/openapi/index.js';
import { createEmitContext, type GeneratedFile } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { ROOT, writeTree } from '../golden/support.js';
import { tscStrict } from '../compile/tsc.js';

const FILE = 'schema/kubernetes/v1.37.1/openapi-v3.json';

function generate(content: string): GeneratedFile[] {
  const r = readOpenApiInputs([{ file: FILE, content }]);
  assert.deepEqual(r.diagnostics, []);
  return runEmitters(r.model, createEmitContext({ sources: r.model.sources }));
}

/** `obj` with its keys in reverse order. */
function reversed(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).reverse());
}

const text = readFileSync(join(ROOT, FILE), 'utf8');
const files = generate(text);

test(
  'the Kubernetes document generates every group-version, and the output compiles (tsc --strict)',
  { timeout: 600_000 },
  async () => {
    const paths = files.map((f) => f.path);
    for (const p of [
      'apis/core/v1/types.ts',
      'apis/apps/v1/deepcopy.ts',
      'clientset/typed/core/v1/pod.ts',
      'informers/core/v1/pod.ts',
      'listers/apps/v1/deployment.ts',
      'applyconfigurations/batch/v1/cronjob.ts',
    ])
      assert.ok(paths.includes(p), p);
    // shared definitions are declared once, in their own version, and imported elsewhere
    const types = (p: string): string => files.find((f) => f.path === p)!.contents;
    assert.match(types('apis/core/v1/types.ts'), /^export interface PodSpec \{$/m);
    assert.doesNotMatch(types('apis/apps/v1/types.ts'), /^export interface PodSpec /m);
    assert.match(
      types('apis/apps/v1/types.ts'),
      /import type \{\n {2}PersistentVolumeClaim,\n {2}PodTemplateSpec,\n\} from "\.\.\/\.\.\/core\/v1\/types\.js";/,
    );
    assert.match(
      files.find((f) => f.path === 'apis/apps/v1/deepcopy.ts')!.contents,
      /import \{\n {2}deepCopyPersistentVolumeClaim,\n {2}deepCopyPodTemplateSpec,\n\} from "\.\.\/\.\.\/core\/v1\/deepcopy\.js";/,
    );
    const out = mkdtempSync(join(tmpdir(), 'crdgen-kubernetes-'));
    try {
      writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
      writeTree(join(out, 'gen'), files);
      const r = await tscStrict([out], 'nodenext');
      assert.equal(r.output, '');
      assert.equal(r.status, 0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test('the output does not depend on the order of the document’s schemas and paths', () => {
  const doc = JSON.parse(text) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  const again = generate(
    JSON.stringify({ ...doc, paths: reversed(doc.paths), components: { schemas: reversed(doc.components.schemas) } }),
  );
  assert.deepEqual(
    again.map((f) => f.path),
    files.map((f) => f.path),
  );
  for (let i = 0; i < files.length; i++) {
    if (again[i].contents === files[i].contents) continue;
    assert.fail(`${files[i].path} differs when the document's keys are reversed`);
  }
});
