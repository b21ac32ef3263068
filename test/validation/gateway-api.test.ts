// Gateway API's own valid/invalid examples through the validation engine, with the corpus's
// Gateway API CRDs: every valid example accepted, every invalid one rejected with the substrings
// EXPECTED.md names (read from the table, not copied here).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { compileValidator, formatFieldError, lazyValidator, precompileSchema, type StructuralValidator } from '../../src/runtime/validation/index.js';

const CRDS = '/work/shared/corpus/crds/gateway-api';
const SUITE = '/work/shared/corpus/validation/gateway-api';

function loadYaml(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Record<string, unknown> | null)
    .filter((x): x is Record<string, unknown> => x !== null);
}

/**
 * `group/version/Kind` → validator, one per served version of each CRD: compiled from the CRD
 * (what crdgen/testing does) or from the precompiled JSON literal (what generated validators embed).
 */
const crds = readdirSync(CRDS)
  .sort()
  .flatMap((f) => loadYaml(join(CRDS, f)));

function loadValidators(precompiled: boolean): Map<string, StructuralValidator> {
  const out = new Map<string, StructuralValidator>();
  for (const crd of crds) {
    const spec = crd.spec as { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
    for (const v of spec.versions) {
      const schema = v.schema.openAPIV3Schema;
      const validator = precompiled ? lazyValidator(JSON.parse(JSON.stringify(precompileSchema(schema)))) : compileValidator(schema);
      out.set(`${spec.group}/${v.name}/${spec.names.kind}`, validator);
    }
  }
  return out;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : []))
    .sort();
}

/** The backticked spans of a cell that are not inside a `[test: …]`/`[form: …]` source tag. */
function expectedSpans(cell: string): string[] {
  const out: string[] = [];
  let tagDepth = 0;
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i]!;
    if (ch === '`') {
      const end = cell.indexOf('`', i + 1);
      if (tagDepth === 0) out.push(cell.slice(i + 1, end).replace(/\\\|/g, '|'));
      i = end;
    } else if (ch === '[') tagDepth++;
    else if (ch === ']') tagDepth--;
  }
  return out;
}

/** EXPECTED.md's table: file → the expected substrings of its last column. */
function expectations(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let previous: string[] = [];
  for (const line of readFileSync(join(SUITE, 'EXPECTED.md'), 'utf8').split('\n')) {
    if (!line.startsWith('| invalid/')) continue;
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const last = cells[cells.length - 2]!;
    let subs = expectedSpans(last);
    if (subs.length === 0 && last.includes('same message as the row above')) subs = previous;
    out.set(cells[1]!, subs);
    previous = subs;
  }
  return out;
}

/** What the apiserver does on create: prune, default, validate. */
function admit(validators: Map<string, StructuralValidator>, obj: Record<string, unknown>): string[] {
  const v = validators.get(`${obj.apiVersion as string}/${obj.kind as string}`);
  assert.ok(v, `no CRD for ${obj.apiVersion as string} ${obj.kind as string}`);
  v.prune(obj);
  v.applyDefaults(obj);
  return v.validate(obj).map(formatFieldError);
}

for (const precompiled of [false, true]) describe(`Gateway API examples through the validation engine (${precompiled ? 'precompiled form' : 'from the CRD'})`, () => {
  const validators = loadValidators(precompiled);
  const expected = expectations();

  it('EXPECTED.md lists every invalid example with at least one substring', () => {
    const files = yamlFiles(join(SUITE, 'invalid')).map((f) => relative(SUITE, f));
    assert.equal(files.length, 27);
    assert.deepEqual([...expected.keys()].sort(), files);
    for (const [f, subs] of expected) assert.ok(subs.length > 0, f);
  });

  for (const file of yamlFiles(join(SUITE, 'valid'))) {
    it(`accepts ${relative(SUITE, file)}`, () => {
      for (const obj of loadYaml(file)) assert.deepEqual(admit(validators, obj), []);
    });
  }

  for (const file of yamlFiles(join(SUITE, 'invalid'))) {
    const rel = relative(SUITE, file);
    it(`rejects ${rel} for the stated reason`, () => {
      const docs = loadYaml(file);
      assert.equal(docs.length, 1);
      const errors = admit(validators, docs[0]!);
      assert.ok(errors.length > 0, 'accepted');
      for (const sub of expected.get(rel) ?? []) {
        assert.ok(errors.some((e) => e.includes(sub)), `no error contains ${JSON.stringify(sub)}:\n${errors.join('\n')}`);
      }
    });
  }

  it('reports the upstream wording for an invalid IP address (gateway_test.go form)', () => {
    const obj = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'g' },
      spec: { gatewayClassName: 'x', addresses: [{ value: '1.2.3.4:8080' }], listeners: [{ name: 'l', port: 80, protocol: 'HTTP' }] },
    };
    const errors = admit(validators, obj);
    assert.ok(errors.includes('spec.addresses[0].value: Invalid value: "1.2.3.4:8080": spec.addresses[0].value in body must be of type ipv4: "1.2.3.4:8080"'), errors.join('\n'));
  });
});
