// Every schema of every CRD in the corpus loads into the engine, and every CEL rule in it compiles
// with our library (a rule that did not would be reported at load time, never pass silently).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { compileValidator } from '../../../../src/runtime/validation/index.js';

const CORPUS = '/work/shared/corpus/crds';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
    )
    .sort();
}

interface Version {
  name: string;
  schema?: { openAPIV3Schema?: unknown };
}

function countRules(x: unknown): number {
  if (Array.isArray(x)) return x.reduce((n: number, v) => n + countRules(v), 0);
  if (typeof x !== 'object' || x === null) return 0;
  let n = 0;
  for (const [k, v] of Object.entries(x))
    n += k === 'x-kubernetes-validations' && Array.isArray(v) ? v.length + countRules(v) : countRules(v);
  return n;
}

describe('corpus CRDs', () => {
  it('every version schema compiles, with all its CEL rules', () => {
    let schemas = 0;
    let rules = 0;
    for (const file of yamlFiles(CORPUS)) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const crd = doc.toJS() as { kind?: string; spec?: { versions?: Version[] } } | null;
        if (crd?.kind !== 'CustomResourceDefinition') continue;
        for (const v of crd.spec?.versions ?? []) {
          const schema = v.schema?.openAPIV3Schema;
          if (!schema) continue;
          const validator = compileValidator(schema, { unsupportedRules: 'report' });
          assert.deepEqual(validator.problems, [], `${file} ${v.name}`);
          schemas++;
          rules += countRules(schema);
        }
      }
    }
    assert.ok(schemas >= 60, `only ${schemas} schemas found`);
    assert.ok(rules >= 300, `only ${rules} rules found`);
  });
});
