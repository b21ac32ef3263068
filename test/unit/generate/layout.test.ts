// The layout helpers make the break decisions prettier makes: each is checked against prettier
// itself (default options) on generated cases whose widths cross the 80-column limit, and a
// synthetic CRD whose kind, group, property and enum names grow step by step generates a tree
// that prettier leaves unchanged (kind names up to 41 characters; longer ones move
// `Object.freeze({` below `export const <Kind>Resource =`, which the templates do not do).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as prettier from 'prettier';
import {
  assignLine,
  callLine,
  importDecl,
  interfaceExtends,
  memberLine,
  propertyLine,
  scalarArray,
  typeArgsLine,
  type TypeExpr,
} from '../../../src/generate/layout.js';
import { textWidth } from '../../../src/generate/doc.js';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../../src/generate/registry.js';

async function assertStable(text: string, label: string): Promise<void> {
  assert.equal(await prettier.format(text, { filepath: 'x.ts' }), text, label);
}

const lit = (s: string): TypeExpr => ({ kind: 'literal', text: `"${s}"` });
const union = (...m: TypeExpr[]): TypeExpr => ({ kind: 'union', members: m });
const ref = (text: string): TypeExpr => ({ kind: 'ref', text });
const kw = (text: string): TypeExpr => ({ kind: 'keyword', text });
const NULL = kw('null');

test('memberLine: unions, arrays, records and nullables as prettier lays them out', async () => {
  for (let n = 1; n <= 64; n += 3) {
    const name = 'N'.repeat(n);
    const enums = union(lit(`${name}a`), lit(`${name}b`), lit('c'));
    const types: TypeExpr[] = [
      enums,
      union(...(enums.kind === 'union' ? enums.members : []), NULL),
      { kind: 'array', item: enums },
      union({ kind: 'array', item: enums }, NULL),
      { kind: 'record', value: enums },
      { kind: 'record', value: ref(name) },
      union(ref(name), NULL),
      union({ kind: 'array', item: ref(name) }, NULL),
      union({ kind: 'record', value: ref(name) }, NULL),
      { kind: 'record', value: union({ kind: 'array', item: ref(name) }, NULL) },
      { kind: 'anyObject' },
      union({ kind: 'anyObject' }, NULL),
      { kind: 'array', item: union(kw('number'), kw('string')) },
      union(kw('number'), kw('string')),
    ];
    for (const [i, t] of types.entries()) {
      await assertStable(`interface A {\n${memberLine(2, `${name}?`, t)}\n}\n`, `type ${i}, key length ${n}`);
      await assertStable(`interface A {\n${memberLine(2, 'status?', t)}\n}\n`, `type ${i}, name length ${n}`);
    }
  }
});

test('importDecl, callLine, typeArgsLine, interfaceExtends, assignLine, propertyLine against prettier', async () => {
  for (let n = 1; n <= 60; n += 2) {
    const k = `K${'a'.repeat(n)}`;
    await assertStable(`${importDecl([`${k}Resource`, `type ${k}`], '"./x.js"')}\n`, `import ${n}`);
    await assertStable(`${importDecl([`${k}Resource`], '"./x.js"', true)}\n`, `single import ${n}`);
    await assertStable(
      `${callLine(0, `export function new${k}Lister`, [`indexer: IndexerReader<${k}>`], `: ${k}Lister {`)}\n  return 1;\n}\n`,
      `signature ${n}`,
    );
    await assertStable(
      `function f() {\n${callLine(2, `return validatorOf${k}.validate`, ['obj', 'old'], ';')}\n}\n`,
      `call ${n}`,
    );
    await assertStable(
      `${callLine(0, `const validatorOf${k} = lazyValidator`, [`schemaOf${k}`], ';')}\n`,
      `assignment ${n}`,
    );
    await assertStable(
      `class A {\n${typeArgsLine(2, 'readonly #client: TypedResourceClient', [k, `${k}List`, `ApplyConfigurationFor<${k}>`], ';')}\n}\n`,
      `type args ${n}`,
    );
    await assertStable(
      `${interfaceExtends(0, 'export interface CoolopsV1alpha1Interface', [`${k}sGetter`, `${k}BGetter`, 'CGetter'], '{}')}\n`,
      `extends ${n}`,
    );
    await assertStable(`${assignLine(0, `export const ${k}Kind`, `"${k}"`)}\n`, `const ${n}`);
    await assertStable(
      `const x = {\n${propertyLine(2, 'resource', `"${k}"`)}\n${propertyLine(2, 'kind', `"${k}${k}"`)}\n};\n`,
      `property ${n}`,
    );
  }
});

test('scalarArray: strings one per line, numbers filled, as prettier does', async () => {
  for (let n = 1; n <= 40; n += 3) {
    const strings = Array.from({ length: 5 }, (_, i) => `"${'s'.repeat(n)}${i}"`);
    const numbers = Array.from({ length: n }, (_, i) => String(i * 997));
    await assertStable(
      `const x = {\n  y: {\n    ${scalarArray(4, 'enum: ', strings, ',', false)}\n  },\n};\n`,
      `strings ${n}`,
    );
    await assertStable(
      `const x = {\n  y: {\n    ${scalarArray(4, 'enum: ', numbers, ',', true)}\n  },\n};\n`,
      `numbers ${n}`,
    );
    await assertStable(
      `${scalarArray(0, 'export const Kinds = Object.freeze(', strings, ' as const);', false)}\n`,
      `frozen ${n}`,
    );
  }
});

test('textWidth counts wide characters twice and combining marks not at all', () => {
  assert.equal(textWidth('abc'), 3);
  assert.equal(textWidth('日本'), 4);
  assert.equal(textWidth('e\u0301'), 1);
});

function crd(kind: string, group: string, prop: string, value: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${kind.toLowerCase()}s.${group}
spec:
  group: ${group}
  names: {kind: ${kind}, listKind: ${kind}List, plural: ${kind.toLowerCase()}s, singular: ${kind.toLowerCase()}, shortNames: [${kind.toLowerCase()}a, ${kind.toLowerCase()}b]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              ${prop}: {type: string, enum: [${value}a, ${value}b, c], nullable: true}
              ${prop}List: {type: array, items: {type: string, enum: [${value}a, ${value}b]}}
              ${prop}Map: {type: object, additionalProperties: {type: string, enum: [${value}a, ${value}b]}}
              codes: {type: integer, enum: [${Array.from({ length: 30 }, (_, i) => i * 1013).join(', ')}]}
              pattern: {type: string, pattern: "^${value}[a-z]+$"}
          status:
            type: object
            properties:
              replicas: {type: integer}
`;
}

test('a CRD whose names grow step by step generates prettier-stable TypeScript', async () => {
  for (const n of [1, 8, 16, 20, 24, 28, 32, 36, 40]) {
    const kind = `K${'a'.repeat(n)}`;
    const group = `${'g'.repeat(n)}.example.com`;
    const r = readCrdInputs([
      { file: 'k.yaml', content: Buffer.from(crd(kind, group, `p${'r'.repeat(n)}`, 'v'.repeat(n * 2))) },
    ]);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
      `n=${n}`,
    );
    const own = EMITTERS.filter((e) => !['deepcopy', 'controller', 'crd'].includes(e.name));
    for (const f of runEmitters(r.model, createEmitContext({ sources: r.model.sources }), own)) {
      assert.equal(await prettier.format(f.contents, { filepath: f.path }), f.contents, `n=${n}: ${f.path}`);
    }
  }
});
