// The YAML fast path gives exactly what the position-keeping parse gives, or declines; and
// positions read lazily from a fast-path document are the ones the full parse reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { fastLoadAll } from '../../../src/input/crd/yaml-fast.js';
import { loadYaml } from '../../../src/input/crd/yaml-source.js';
import { readCrdInputs } from '../../../src/input/crd/index.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** What `yaml` gives: the values of the non-empty documents, or 'error'. */
function full(text: string): unknown[] | 'error' {
  const docs = parseAllDocuments(text, { lineCounter: new LineCounter(), uniqueKeys: true, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) return 'error';
  return list.filter((d) => d.contents !== null).map((d) => d.toJS({ maxAliasCount: 100 }));
}

const SAME = [
  'a: ~\nb: Null\nc: NULL\nd:\ne: null',
  'x: [True, TRUE, true, yes, no, on, off, y, n, False]',
  'n: [0o17, 017, 0x1F, +1, -0, .5, 1e3, 1_000, .inf, -.Inf, .NaN, 1., 0.10, 12e-3, 0b11, 1:20, 2020-01-01, 0x, 0o, +.inf]',
  's: \'q\'\nt: "q\\n"\nu: |\n  a\n  b\nv: >-\n  c\n  d\nw: |+\n  keep\n\n',
  'a:   multi\n  line\n  plain',
  'a: 1\n...\n---\nb: 2',
  'a: 1\r\nb: 2\r\n',
  '__proto__: {x: 1}',
  'k: [1, 2, {x: y}]\n1.0: a\ntrue: b\n0x10: c',
  'rule: "a ? b : c"\nmsg: >-\n  x\n  ? y : z\n',
  '? a\n: b',
  '- plain\n- "q"\n- 9007199254740993',
];

test('fast path: the same values as yaml (core schema: null, bool, int, float; strings; block scalars)', () => {
  for (const text of SAME) {
    const fast = fastLoadAll(text);
    assert.ok(fast, `fast path taken for ${JSON.stringify(text)}`);
    assert.deepEqual(fast, full(text), text);
  }
});

test('fast path declines what only the full parse gets right: errors, anchors, tags, directives, odd keys, empty documents', () => {
  const declined = [
    'a: 1\na: 2', // duplicate key: the full parse words the diagnostic
    'a: [1,2', // syntax error
    'a:\n\t b: 1', // tab indentation
    'a: &x 1\nb: *x', // alias (expanded under the alias budget there)
    'a: !!str 1',
    'a: !!int "3"',
    'a: !foo 1',
    '%YAML 1.1\n---\na: yes',
    'null: 1', // yaml spells a null key "", js-yaml "null"
    '~: 1',
    '[a]: b', // collection keys are spelled differently
    '{a: 1}: b',
    '? - a\n  - b\n: c',
    'x: {[a]: b}',
    'a: 1\n---\n', // an empty document
    'null',
  ];
  for (const text of declined) assert.equal(fastLoadAll(text), undefined, text);
});

test('fast path on the DatabaseManager CRD and lazy positions equal the full parse', () => {
  const text = readFileSync(join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml'), 'utf8');
  assert.ok(fastLoadAll(text));
  const fast = loadYaml(text, 'crd.yaml');
  // a text the fast path declines (a leading %YAML directive) takes the full parse, positions one line lower
  const slow = loadYaml(`%YAML 1.2\n---\n${text.replace(/^---\n/, '')}`, 'crd.yaml');
  assert.equal(fast.docs[0].positioned, false);
  assert.equal(slow.docs[0].positioned, true);
  assert.deepEqual(fast.docs[0].value, slow.docs[0].value);
  const paths = [
    [],
    ['spec', 'names', 'kind'],
    [
      'spec',
      'versions',
      0,
      'schema',
      'openAPIV3Schema',
      'properties',
      { key: 'spec' },
      'properties',
      { key: 'replicas' },
    ],
    ['spec', 'nope'],
  ] as const;
  const shift = text.startsWith('---\n') ? 1 : 2;
  for (const p of paths) {
    const a = fast.docs[0].locate(p);
    const b = slow.docs[0].locate(p);
    assert.deepEqual({ line: a.line + shift, col: a.col }, b, JSON.stringify(p));
  }
});

test('model positions from the fast path are plain readable data, as the full parse gives them', () => {
  const crd = readFileSync(join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml'));
  const { model, diagnostics } = readCrdInputs([{ file: 'crd.yaml', content: crd }]);
  assert.deepEqual(diagnostics, []);
  const kind = model.groups[0].versions[0].kinds[0];
  const src = kind.source;
  assert.deepEqual(Object.keys(src), ['file', 'line', 'col', 'path']);
  assert.deepEqual({ ...src }, { file: 'crd.yaml', line: src.line, col: src.col, path: 'spec.names.kind' });
  const text = crd.toString('utf8').split('\n');
  assert.equal(text[src.line - 1].slice(src.col - 1), 'DatabaseManager'); // a scalar's own position
  assert.equal(JSON.parse(JSON.stringify(src)).line, src.line);
});
