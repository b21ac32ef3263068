import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMarker, suggest, type ParsedMarker } from '../../../../src/input/ts/markers.js';
import { parseArgs, parseList, parseString, splitTopLevel } from '../../../../src/input/ts/marker-grammar.js';
import { jsdocText } from '../../../../src/input/ts/comments.js';
import { fooKind, readSources, specProp } from './helpers.js';
import type { Diagnostic } from '../../../../src/diagnostics/diagnostic.js';

const pos = { file: 'a.ts', line: 3, col: 4 };
const parse = (text: string): ParsedMarker | Diagnostic => parseMarker({ text, pos });
const ok = (text: string): ParsedMarker => {
  const m = parse(text);
  assert.ok(!('severity' in m), `expected ${text} to parse, got ${JSON.stringify(m)}`);
  return m;
};
const bad = (text: string): Diagnostic => {
  const m = parse(text);
  assert.ok('severity' in m, `expected ${text} to fail`);
  return m;
};

test('grammar: top-level split respects quotes and braces', () => {
  assert.deepEqual(splitTopLevel('a="x,y",b={1,2},c=`p,q`', ','), ['a="x,y"', 'b={1,2}', 'c=`p,q`']);
  assert.throws(() => splitTopLevel('a="x', ','), /unterminated/);
  assert.throws(() => splitTopLevel('a={x', ','), /unbalanced/);
});

test('grammar: strings, lists and args', () => {
  assert.equal(parseString(' "a\\"b" '), 'a"b');
  assert.equal(parseString('`^[a-z]+$`'), '^[a-z]+$');
  assert.equal(parseString(' bare value '), 'bare value');
  assert.deepEqual(parseList('a;"b;c";3'), [
    { text: 'a', quoted: false },
    { text: 'b;c', quoted: true },
    { text: '3', quoted: false },
  ]);
  assert.deepEqual(parseList('{x,y}'), [
    { text: 'x', quoted: false },
    { text: 'y', quoted: false },
  ]);
  assert.deepEqual(
    [...parseArgs('a=1,flag,b="x=y"')],
    [
      ['a', '1'],
      ['flag', 'true'],
      ['b', '"x=y"'],
    ],
  );
  assert.throws(() => parseArgs('a=1,a=2'), /given twice/);
});

test('known markers parse to typed values', () => {
  assert.equal(ok('kubebuilder:validation:Minimum=-1.5').value, -1.5);
  assert.equal(ok('kubebuilder:validation:MaxLength=63').value, 63);
  assert.equal(ok('genclient').value, true);
  assert.deepEqual(ok('genclient:onlyVerbs=create, get').value, ['create', 'get']);
  assert.deepEqual(ok('kubebuilder:default={"a":[1,2]}').value, { a: [1, 2] });
  const res = ok('kubebuilder:resource:shortName=dm;db,scope=Namespaced').value as Map<string, unknown>;
  assert.deepEqual(res.get('shortName'), [
    { text: 'dm', quoted: false },
    { text: 'db', quoted: false },
  ]);
  assert.equal(res.get('scope'), 'Namespaced');
  const x = ok('kubebuilder:validation:XValidation:rule="self.a, self.b",optionalOldSelf').value as Map<
    string,
    unknown
  >;
  assert.equal(x.get('rule'), 'self.a, self.b');
  assert.equal(x.get('optionalOldSelf'), true);
  const items = ok('kubebuilder:validation:items:items:MaxLength=3');
  assert.equal(items.itemsDepth, 2);
  assert.equal(items.def.name, 'kubebuilder:validation:MaxLength');
  assert.deepEqual(ok('kubebuilder:deprecatedversion').value, new Map());
});

test('unknown markers are TS005 with a suggestion', () => {
  const d = bad('kubebuilder:validation:Minimun=1');
  assert.equal(d.code, 'TS005');
  assert.equal(d.message, 'unknown marker "+kubebuilder:validation:Minimun"');
  assert.equal(d.hint, 'did you mean "+kubebuilder:validation:Minimum"?');
  assert.deepEqual([d.file, d.line, d.col], ['a.ts', 3, 4]);
  assert.equal(bad('genclient:nonNamespace').hint, 'did you mean "+genclient:nonNamespaced"?');
  assert.equal(bad('totally:different').hint, undefined);
  assert.equal(suggest('groupname'), 'groupName');
});

test('bad values are TS007 with usage', () => {
  const cases: [string, RegExp][] = [
    ['kubebuilder:validation:Minimum=abc', /expected a number/],
    ['kubebuilder:validation:MaxLength=1.5', /expected an integer/],
    ['kubebuilder:default={bad', /not valid JSON|unbalanced/],
    ['genclient:onlyVerbs=fly', /unknown verb "fly"/],
    ['genclient=true', /takes no value/],
    ['kubebuilder:validation:Minimum', /needs a value/],
    ['kubebuilder:printcolumn:name=x,type=string', /missing argument "JSONPath"/],
    ['kubebuilder:resource:plural=x', /unknown argument "plural"/],
    ['kubebuilder:validation:Pattern="unterminated', /quoted string/],
  ];
  for (const [text, re] of cases) {
    const d = bad(text);
    assert.equal(d.code, 'TS007', text);
    assert.match(d.message, re, text);
    assert.ok(d.hint?.startsWith('write it as "+'), text);
  }
});

test('JSDoc text: stars and one space stripped, blank edge lines dropped, *\\/ unescaped', () => {
  assert.equal(jsdocText('/** One line. */'), 'One line.');
  assert.equal(jsdocText('/**\n * a\n *\n *  b\n */'), 'a\n\n b');
  assert.equal(jsdocText('/** x *\\/ y */'), 'x */ y');
  assert.equal(jsdocText('/** */'), undefined);
  assert.equal(jsdocText('/**\n * only line\n */'), 'only line');
});

test('a marker inside a JSDoc comment: a TS014 warning at the "+" with the fix; not read, and not the description', () => {
  const r = readSources({
    'types.ts': fooKind(`  /** +kubebuilder:validation:Maximum=10 */
  replicas?: number;
  /**
   * Name of the Deployment.
   * +kubebuilder:validation:MinLength=1
   *   +optional
   */
  name?: string;
  /** +1 for every replica; +optional extras are text, as is +genclient:verbs in prose */
  note?: string;`),
  });
  const warnings = r.diagnostics.filter((d) => d.code === 'TS014');
  assert.deepEqual(
    warnings.map((d) => `${d.line}:${d.col} ${d.severity} ${d.message} | ${d.hint}`),
    [
      '13:7 warning "+kubebuilder:validation:Maximum=10" is inside a JSDoc comment, where markers are not read (nor taken as the description) | markers are // comments: write "// +kubebuilder:validation:Maximum=10" on a line of its own above the declaration',
      '17:6 warning "+kubebuilder:validation:MinLength=1" is inside a JSDoc comment, where markers are not read (nor taken as the description) | markers are // comments: write "// +kubebuilder:validation:MinLength=1" on a line of its own above the declaration',
      '18:8 warning "+optional" is inside a JSDoc comment, where markers are not read (nor taken as the description) | markers are // comments: write "// +optional" on a line of its own above the declaration',
    ],
  );
  assert.ok(!r.diagnostics.some((d) => d.severity === 'error'), JSON.stringify(r.diagnostics));
  const prop = (name: string) => specProp(r, name);
  assert.equal(prop('replicas').description, undefined, 'the marker is not the description');
  assert.equal(prop('name').description, 'Name of the Deployment.');
  assert.equal(
    prop('note').description,
    '+1 for every replica; +optional extras are text, as is +genclient:verbs in prose',
  );
  assert.equal(JSON.stringify(prop('replicas')).includes('maximum'), false, 'not applied either');
});

test('jsdocText leaves out the lines its filter refuses, and the blank lines they leave at the ends', () => {
  const noMarkers = (line: string) => !line.trim().startsWith('+');
  assert.equal(jsdocText('/** +a:b=1 */', noMarkers), undefined);
  assert.equal(jsdocText('/**\n * +a:b=1\n *\n * Text.\n */', noMarkers), 'Text.');
  assert.equal(jsdocText('/**\n * Text.\n *\n * +a:b=1\n */', noMarkers), 'Text.');
  assert.equal(jsdocText('/**\n * a\n * +x:y\n *\n * b\n */', noMarkers), 'a\n\nb');
});
