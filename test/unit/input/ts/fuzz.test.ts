// Robustness: whatever the TypeScript text, the reader answers with diagnostics or a model,
// never an exception. Sources are made of API-file fragments, shuffled and cut at random.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readSources } from './helpers.js';
import { SEED, runs } from '../../../fuzz/support.js';

const FRAGMENTS = [
  '// +groupName=example.com\n',
  '// +versionName=v1\n',
  "import type { ObjectMeta, int32, IntOrString } from 'crdgen/types';\n",
  "import type { Other } from './b.js';\n",
  '// +genclient\n',
  '// +kubebuilder:resource:shortName=f;g,scope=Cluster\n',
  '// +kubebuilder:validation:Minimum=1\n',
  '// +kubebuilder:default={"a":\n',
  '// +listType=map\n// +listMapKey=name\n',
  '/** A description. */\n',
  '/** unterminated ',
  "export interface Foo { apiVersion: 'example.com/v1'; kind: 'Foo'; metadata: ObjectMeta; spec: FooSpec }\n",
  'export interface FooSpec { a?: string; b: int32[]; c: Record<string, Other>; d: IntOrString | null }\n',
  "export type Mode = 'a' | 'b';\n",
  'export interface Other extends FooSpec { e: Mode; f: { g: Other } }\n',
  'export class X {}\n',
  'export interface Gen<T> { t: T }\n',
  'interface Bad { [k: string]: number; x: string }\n',
  '{ } ] ) ( <\n',
  "kind: 'Foo';\n",
];

const source = fc
  .array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 10 })
  .chain((parts) => fc.tuple(fc.constant(parts.join('')), fc.nat()))
  .map(([text, cut]) => text.slice(0, text.length - (cut % 8)));

test('the reader never throws, whatever the input', () => {
  fc.assert(
    fc.property(source, source, (a, b) => {
      const r = readSources({ 'a.ts': a, 'b.ts': b });
      assert.ok(Array.isArray(r.diagnostics));
      for (const d of r.diagnostics) assert.ok(d.code.length > 0 && d.message.length > 0);
      if (r.diagnostics.every((d) => d.severity !== 'error')) assert.ok(r.model.groups.length > 0);
    }),
    { numRuns: runs(40), seed: SEED },
  );
});
