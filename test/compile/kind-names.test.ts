// Kinds the apiserver accepts that cannot name a TypeScript type as they are — lower-case,
// hyphenated, JavaScript built-ins (`Object`, `Promise`, `Error`), a list kind of another case —
// are read with a warning naming the type names chosen, and every generated file compiles under
// tsc --strict, the API names kept on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { tscStrict } from './tsc.js';

/** kind, plural, listKind (undefined: the default), the type names expected. */
const KINDS: [string, string, string | undefined, string, string][] = [
  ['widget', 'widgets', undefined, 'Widget', 'WidgetList'],
  ['Wid-get', 'widgets2', undefined, 'WidGet', 'WidGetList'],
  ['Object', 'objects', undefined, 'ObjectKind', 'ObjectKindList'],
  ['Promise', 'promises', undefined, 'PromiseKind', 'PromiseKindList'],
  ['Error', 'errors', undefined, 'ErrorKind', 'ErrorKindList'],
  ['gadget', 'gadgets', 'gadgetList', 'Gadget', 'GadgetList'],
  // (a list kind that takes the name another kind's type got: numbered)
  ['Thing', 'things', 'Promise', 'Thing', 'PromiseKind2'],
  ['constructor', 'constructors', undefined, 'Constructor', 'ConstructorList'],
];

const crd = ([kind, plural, listKind]: (typeof KINDS)[number]): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.names.example.com
spec:
  group: names.example.com
  names: {kind: ${JSON.stringify(kind)}, plural: ${plural}${listKind ? `, listKind: ${listKind}` : ''}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
          status:
            type: object
            properties:
              ready: {type: boolean}
`;

test('kinds that are no TypeScript names: a warning names the types chosen, and the generated code compiles', async () => {
  const sources = KINDS.map((k) => ({ file: `${k[1]}.yaml`, content: crd(k) }));
  const r = readCrdInputs(sources);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  for (const [kind, , listKind, type, list] of KINDS) {
    const k = r.model.groups[0].versions[0].kinds.find((x) => x.kind === kind);
    assert.ok(k, kind);
    assert.equal(k.listKind, listKind ?? `${kind}List`, `${kind}: the API's list kind is kept`);
    if (type === kind && list === (listKind ?? `${kind}List`)) continue;
    const warning = r.diagnostics.find((d) => d.code === 'GEN006' && d.message.includes(JSON.stringify(kind)));
    assert.ok(warning, `${kind}: a GEN006 warning`);
    assert.equal(warning.severity, 'warning');
    assert.ok(
      r.diagnostics.some(
        (d) =>
          d.code === 'GEN006' &&
          d.message.includes(JSON.stringify(kind)) &&
          d.message.includes(`names its type ${type} and its list type ${list}`),
      ),
      `${kind}: the warning names ${type} and ${list}`,
    );
  }
  // every generator: the operator's controllers and webhooks for three of them too
  const files = runEmitters(
    r.model,
    createEmitContext({
      sources: sources.map((s) => s.file),
      controllers: ['widget', 'Object', 'Promise'],
      webhooks: true,
    }),
  );
  assert.ok(
    files.some((f) => f.path.startsWith('controllers/')),
    'controllers generated',
  );
  const types = files.find((f) => f.path === 'apis/names.example.com/v1/types.ts')!.contents;
  // the type is the safe name, the wire kind the API's
  assert.match(types, /export interface Widget \{[^}]*kind\?: "widget";/);
  assert.match(types, /export interface WidGetList \{[^}]*kind\?: "Wid-getList";/);
  assert.match(types, /export interface ObjectKind \{[^}]*kind\?: "Object";/);
  assert.doesNotMatch(types, /interface (Object|Promise|Error) /);
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-kind-names-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  try {
    for (const f of files) {
      if (!f.path.endsWith('.ts')) continue;
      const p = join(dir, f.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.contents);
    }
    const t = await tscStrict([dir], 'nodenext');
    assert.equal(t.output.slice(0, 6000), '');
    assert.equal(t.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
