// Hostile names and texts in a CRD: in descriptions, property names, enum values, defaults,
// printer columns, and in kinds, plurals, groups, versions, short names and categories. Every
// case is either refused with positioned diagnostics, or generates code that has no injected
// statement, writes only inside `out`, and (a sample, in one program) compiles.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import type { GeneratedFile } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { writeFiles } from '../../src/emit/writer.js';
import { ROOT } from '../golden/support.js';
import { CompileSample, assertPositioned } from '../fuzz/support.js';
import { HOSTILE, assertNoInjection, assertSafePaths, walk } from './hostile.js';

type Rec = Record<string, any>;
const BASE = parse(readFileSync(join(ROOT, 'fixtures/databasemanager/crd.yaml'), 'utf8')) as Rec;
const tmp = mkdtempSync(join(tmpdir(), 'crdgen-hostile-'));
const sample = new CompileSample(40);
/** Names of Object.prototype members other than `__proto__`: the TypeScript interface below gives those properties other names. */
const PROTO_MEMBER = (h: string): boolean => h in Object.prototype && h !== '__proto__';
let cases = 0;
let generated = 0;
let refused = 0;

/** Reads `crd`; refused → positioned diagnostics; accepted → safe, injection-free, written inside out. */
async function check(crd: Rec, label: string): Promise<'refused' | 'generated'> {
  cases++;
  const r = readCrdInputs([{ file: 'hostile.yaml', content: stringify(crd) }]);
  assertPositioned(r.diagnostics, label);
  if (r.diagnostics.some((d) => d.severity === 'error')) {
    refused++;
    return 'refused';
  }
  const files: GeneratedFile[] = runEmitters(r.model, createEmitContext({ sources: ['hostile.yaml'] }));
  assertSafePaths(files);
  for (const f of files) if (f.path.endsWith('.ts')) assertNoInjection(`${label}: ${f.path}`, f.contents);
  const root = join(tmp, `case${cases}`);
  const out = join(root, 'out');
  mkdirSync(out, { recursive: true });
  await writeFiles(out, files);
  for (const p of walk(root)) assert.ok(p.startsWith('out/'), `${label}: wrote ${p} outside out/`);
  assert.equal(walk(out).length, files.length);
  sample.add(files);
  generated++;
  return 'generated';
}

after(async () => {
  await sample.check();
  rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(
    `security: ${cases} hostile inputs: ${generated} generated (checked, ${sample.size} compiled), ${refused} refused with positioned diagnostics\n`,
  );
});

describe('hostile names and texts', () => {
  it('in descriptions, property names, enum values, defaults and printer columns: generated, nothing injected', async (t) => {
    const crd = structuredClone(BASE);
    const v = crd.spec.versions[0];
    const schema = v.schema.openAPIV3Schema;
    schema.description = HOSTILE.join(' | ');
    const spec = schema.properties.spec;
    spec.description = HOSTILE.join('\n');
    // every hostile text is a property name too, Object.prototype members (`constructor`,
    // `toString`) included: validation.ts asserts such schema literals instead of annotating them
    HOSTILE.forEach((h, i) => {
      spec.properties[h] = { type: 'string', description: h, default: h };
      spec.properties[`e${i}`] = { type: 'string', enum: [h, `${h}2`], default: h, description: `enum ${h}` };
    });
    spec.properties.obj = {
      type: 'object',
      description: '*/ pwned(); /*',
      properties: Object.fromEntries(HOSTILE.map((h) => [h, { type: 'integer', description: h }])),
      default: Object.fromEntries(HOSTILE.map((h) => [h, 1])),
    };
    spec.properties.list = { type: 'array', items: { type: 'string', enum: [...HOSTILE] }, default: [...HOSTILE] };
    spec.properties.map = {
      type: 'object',
      additionalProperties: { type: 'string' },
      default: Object.fromEntries(HOSTILE.map((h) => [h, h])),
    };
    v.additionalPrinterColumns = HOSTILE.slice(0, 6).map((h, i) => ({
      name: `col${i} ${h}`.slice(0, 60),
      type: 'string',
      jsonPath: '.spec.dbtype',
      description: h,
    }));
    assert.equal(await check(crd, 'texts'), 'generated', 'hostile texts in legal places must be accepted and escaped');
    t.diagnostic(
      `security: ${HOSTILE.length} hostile texts, each as a description, enum value, default, map key, property name and printer column: one CRD, generated and checked`,
    );
  });

  it('in kinds, list kinds, plurals, singulars, groups, versions, short names and categories: refused or safe', async (t) => {
    const fields: [string, (c: Rec, h: string) => void][] = [
      ['kind', (c, h) => void (c.spec.names.kind = h)],
      ['listKind', (c, h) => void (c.spec.names.listKind = h)],
      ['plural', (c, h) => void (c.spec.names.plural = h)],
      ['singular', (c, h) => void (c.spec.names.singular = h)],
      ['group', (c, h) => void (c.spec.group = h)],
      ['version', (c, h) => void (c.spec.versions[0].name = h)],
      ['shortNames', (c, h) => void (c.spec.names.shortNames = [h])],
      ['categories', (c, h) => void (c.spec.names.categories = [h])],
    ];
    const outcome: Record<string, string[]> = {};
    const accepted: string[] = [];
    for (const [field, set] of fields) {
      for (const h of HOSTILE) {
        const crd = structuredClone(BASE);
        set(crd, h);
        crd.metadata.name = `${crd.spec.names.plural}.${crd.spec.group}`;
        const r = await check(crd, `${field}=${JSON.stringify(h)}`);
        (outcome[field] ??= []).push(`${r[0]}`);
        if (r === 'generated') accepted.push(`${field}=${JSON.stringify(h)}`);
      }
    }
    // `constructor` and `prototype` are legal DNS labels (plurals, singulars, versions, short
    // names, categories), and those trees passed every check above; a group needs a dot.
    t.diagnostic(`legal hostile names (generated and checked): ${accepted.join(', ')}`);
    t.diagnostic(
      `security: ${fields.length * HOSTILE.length} hostile names (${fields.length} fields × ${HOSTILE.length} values): ${accepted.length} generated and checked, ${fields.length * HOSTILE.length - accepted.length} refused with positioned diagnostics`,
    );
    for (const f of ['group']) assert.ok(!outcome[f].includes('g'), `${f}: a hostile value was accepted`);
    assert.ok(Object.values(outcome).flat().includes('g'), 'some hostile names are legal and were generated');
  });
});

describe('hostile texts in annotated TypeScript', () => {
  it('string-literal enums, defaults, JSDoc text and quoted property names: refused or generated without injection', async (t) => {
    // `*/` cannot appear inside a TypeScript comment, so JSDoc carries the other payloads.
    const lit = (h: string): string =>
      JSON.stringify(h)
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029');
    const safeDoc = HOSTILE.filter((h) => !h.includes('*/'))
      .join(' ')
      .replace(/\r?\n|[\u2028\u2029]/g, ' ');
    const source = `// +groupName=example.com
// +versionName=v1
import type { ObjectMeta } from 'crdgen/types';
/** ${safeDoc} */
// +genclient
export interface Thing { apiVersion: 'example.com/v1'; kind: 'Thing'; metadata: ObjectMeta; spec?: ThingSpec }
/** ${safeDoc} */
export interface ThingSpec {
${HOSTILE.map((h, i) => `  /** ${safeDoc} */\n  // +kubebuilder:default=${lit(h)}\n  ${lit(PROTO_MEMBER(h) ? `p${i}` : h)}?: ${lit(h)} | ${lit(`${h}${i}`)};`).join('\n')}
}
`;
    const { readTypeScript } = await import('../../src/input/ts/reader.js');
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-hostile-ts-'));
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(dir, 'types.ts'), source);
      const r = readTypeScript(['types.ts'], { cwd: dir });
      assertPositioned(r.diagnostics, 'hostile TypeScript');
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length === 0) {
        const files = runEmitters(r.model, createEmitContext({ sources: ['types.ts'] }));
        assertSafePaths(files);
        for (const f of files) if (f.path.endsWith('.ts')) assertNoInjection(`ts input: ${f.path}`, f.contents);
        sample.add(files);
        generated++;
        t.diagnostic('hostile TypeScript: generated and checked');
      } else {
        refused++;
        t.diagnostic(`hostile TypeScript: refused (${errors.map((d) => d.code).join(', ')})`);
      }
      cases++;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
