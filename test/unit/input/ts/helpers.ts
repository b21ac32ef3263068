// Test helpers: write TypeScript sources to a temporary folder and read them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Diagnostic } from '../../../../src/diagnostics/diagnostic.js';
import type { Kind, Model, SchemaNode } from '../../../../src/model/types.js';
import { readTypeScript, type TsReadResult } from '../../../../src/input/ts/reader.js';

/** The usual header of a test file: group, version and the crdgen/types import. */
export const HEAD = `// +groupName=example.com
// +versionName=v1
import type { ObjectMeta, int32, int64, IntOrString, Quantity, Time, Duration, RawExtension, JSONValue } from 'crdgen/types';
`;

/** A kind `Foo` with the given spec body (members of FooSpec) and extra declarations. */
export function fooKind(specBody: string, extra = '', kindMarkers = '// +genclient'): string {
  return `${HEAD}
${kindMarkers}
export interface Foo {
  apiVersion: 'example.com/v1';
  kind: 'Foo';
  metadata: ObjectMeta;
  spec: FooSpec;
}
export interface FooSpec {
${specBody}
}
${extra}`;
}

/** Writes `files` (relative path → text) to a fresh folder, reads the folder, removes it. */
export function readSources(
  files: Record<string, string>,
  inputs: string[] = ['.'],
  tsconfig?: string,
  apiserverChecks = true,
): TsReadResult {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-ts-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return readTypeScript(inputs, { cwd: dir, apiserverChecks, ...(tsconfig ? { tsconfig } : {}) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `file:line:col CODE message` per diagnostic. */
export function diagLines(ds: readonly Diagnostic[]): string[] {
  return ds.map((d) => `${d.file ?? ''}:${d.line ?? ''}:${d.col ?? ''} ${d.code} ${d.message}`);
}

/** The only kind of a model (asserts there is exactly one). */
export function onlyKind(model: Model): Kind {
  const kinds = model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds));
  if (kinds.length !== 1) throw new Error(`expected one kind, got ${kinds.length}`);
  return kinds[0];
}

/** A deep copy of a schema without `source` positions, for comparisons. */
export function stripSources<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'source' ? undefined : v))) as T;
}

/** The schema of property `name` of FooSpec in a model holding only Foo. */
export function specProp(result: TsReadResult, name: string): SchemaNode {
  const spec = onlyKind(result.model).schema;
  if (spec?.type !== 'object') throw new Error('no schema');
  const specNode = spec.properties.find((p) => p.name === 'spec')?.schema;
  if (specNode?.type !== 'object') throw new Error('no spec');
  const p = specNode.properties.find((q) => q.name === name);
  if (!p) throw new Error(`no property ${name}`);
  return stripSources(p.schema);
}
