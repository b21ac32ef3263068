// A kind whose schema names no property (a root that only keeps unknown fields) is still a
// Kubernetes object: its type has apiVersion, kind and metadata, and every generated tree for it
// compiles under tsc --strict (the informers and listers hand out Stored<Kind>). The fuzz of the
// readers found the root emitted as a bare index signature.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { tscStrict } from './tsc.js';

const crd = (schema: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.samples.example.com
spec:
  group: samples.example.com
  names: {kind: Foo, plural: foos, listKind: FooList}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
${schema}
`;

test('a root without properties keeps TypeMeta and ObjectMeta, and its trees compile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-free-root-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  try {
    const roots = {
      preserved: '        type: object\n        x-kubernetes-preserve-unknown-fields: true',
      described:
        '        type: object\n        description: anything goes\n        x-kubernetes-preserve-unknown-fields: true',
    };
    for (const [name, schema] of Object.entries(roots)) {
      const r = readCrdInputs([{ file: `${name}.yaml`, content: crd(schema) }]);
      assert.deepEqual(
        r.diagnostics.filter((d) => d.severity === 'error'),
        [],
        name,
      );
      const files = runEmitters(r.model, createEmitContext({ sources: [`${name}.yaml`] }));
      const types = files.find((f) => f.path === 'apis/samples.example.com/v1alpha1/types.ts');
      assert.ok(types, `${name}: types.ts generated`);
      const foo = /export interface Foo \{[^}]*\}/.exec(types.contents)?.[0] ?? '';
      assert.match(foo, /apiVersion\?: "samples\.example\.com\/v1alpha1";/, name);
      assert.match(foo, /kind\?: "Foo";/, name);
      assert.match(foo, /metadata\?: ObjectMeta;/, name);
      assert.match(foo, /\[key: string\]: unknown;/, name);
      for (const f of files) {
        if (!f.path.endsWith('.ts')) continue;
        const p = join(dir, name, f.path);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, f.contents);
      }
    }
    const r = await tscStrict([dir], 'nodenext');
    assert.equal(r.output.slice(0, 4000), '');
    assert.equal(r.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
