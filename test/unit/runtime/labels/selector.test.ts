import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  everything,
  labelSelectorAsSelector,
  newRequirement,
  nothing,
  parseSelector,
  selectorFromSet,
  SelectorError,
  toSelector,
} from '../../../../src/runtime/index.js';

test('parses the grammar and prints it canonically (sorted by key, values sorted)', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['   ', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c,x=a', 'x=a,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x==a', 'x==a'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x', 'x'],
    ['x>1,z<5', 'x>1,z<5'],
    ['tier in (b, a ,a)', 'tier in (a,b)'],
    ['tier notin (a)', 'tier notin (a)'],
    ['app=db,tier in (a,b),!legacy', 'app=db,!legacy,tier in (a,b)'],
    ['example.com/role = primary', 'example.com/role=primary'],
    ['x in (a,)', 'x in (,a)'],
    ['phase=in,mode!=notin', 'mode!=notin,phase=in'],
    ['x in (in,notin)', 'x in (in,notin)'],
  ];
  for (const [input, want] of cases) assert.equal(parseSelector(input).toString(), want, input);
});

test('rejects malformed selectors with SelectorError naming the position', () => {
  const bad = [
    'x in in',
    'x=a||y=b',
    'x==a==b',
    '!x=a',
    'x<a',
    'x>',
    'x in (a',
    'x in a',
    ',',
    'x=a,',
    '=a',
    'x y',
    'x notin',
    '!',
    'Bad Key=1',
    '-x=a',
    `x=${'a'.repeat(64)}`,
    'x=-a',
    'a/b/c=d',
    'UPPER.com/x=y',
    `${'k'.repeat(64)}=v`,
    'n>-1',
  ];
  for (const s of bad) {
    assert.throws(
      () => parseSelector(s),
      (e: unknown) => e instanceof SelectorError && e.message.includes('unable to parse label selector'),
      s,
    );
  }
  assert.throws(() => parseSelector('x==a==b'), /found "==" at position 4/);
  assert.equal(
    parseSelector('in=a,notin').toString(),
    'in=a,notin',
    'in and notin are keys where a key stands, as in apimachinery',
  );
  assert.equal(parseSelector('x in ()').toString(), 'x in ()', '() is the empty value, as in apimachinery');
  assert.equal(parseSelector('x in ()').matches({ x: '' }), true);
  assert.equal(parseSelector('x in ()').matches({ x: 'a' }), false);
});

test('matching follows apimachinery (absent labels satisfy != and notin, gt/lt need integers)', () => {
  const labels = { app: 'db', tier: 'a', n: '7', word: 'seven' };
  const yes = [
    '',
    'app=db',
    'app==db',
    'app',
    '!legacy',
    'tier in (a,b)',
    'tier notin (c)',
    'missing!=x',
    'missing notin (x)',
    'n>6',
    'n<8',
    'app=db,tier in (a,b),!legacy',
  ];
  const no = [
    'app=web',
    'app!=db',
    '!app',
    'legacy',
    'tier in (b,c)',
    'tier notin (a)',
    'n>7',
    'n<7',
    'word>1',
    'missing>1',
    'missing=x',
    'app=db,legacy',
  ];
  for (const s of yes) assert.equal(parseSelector(s).matches(labels), true, s);
  for (const s of no) assert.equal(parseSelector(s).matches(labels), false, s);
  assert.equal(parseSelector('!x').matches(undefined), true);
  assert.equal(parseSelector('x').matches(undefined), false);
  // inherited properties are not labels
  assert.equal(parseSelector('constructor').matches({}), false);
});

test('everything, nothing, selectorFromSet, toSelector', () => {
  assert.equal(everything().empty(), true);
  assert.equal(everything().matches({ a: 'b' }), true);
  assert.equal(nothing().matches({}), false);
  assert.equal(nothing().empty(), false);
  const s = selectorFromSet({ b: '2', a: '1' });
  assert.equal(s.toString(), 'a=1,b=2');
  assert.equal(s.matches({ a: '1', b: '2', c: '3' }), true);
  assert.equal(s.matches({ a: '1' }), false);
  assert.throws(() => selectorFromSet({ 'bad key': 'x' }), SelectorError);
  assert.equal(toSelector(undefined).empty(), true);
  assert.equal(toSelector('a=1').toString(), 'a=1');
  assert.equal(toSelector(s), s);
  assert.equal(s.add(newRequirement('0first', 'exists')).toString(), '0first,a=1,b=2');
});

test('newRequirement validates operator arity and values', () => {
  assert.throws(() => newRequirement('a', '=', []), /one single value/);
  assert.throws(() => newRequirement('a', 'exists', ['x']), /must be empty/);
  assert.throws(() => newRequirement('a', 'gt', ['x']), /must be an integer/);
  assert.throws(() => newRequirement('', 'exists'), /invalid label key/);
  assert.deepEqual(newRequirement('a', 'in', ['b', 'a', 'b']).values, ['a', 'b']);
});

test('labelSelectorAsSelector converts metav1.LabelSelector', () => {
  assert.equal(labelSelectorAsSelector(undefined).matches({}), false);
  assert.equal(labelSelectorAsSelector({}).empty(), true);
  const s = labelSelectorAsSelector({
    matchLabels: { app: 'db' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'zone', operator: 'Exists' },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
    ],
  });
  assert.equal(s.toString(), 'app=db,env notin (prod),!legacy,tier in (a,b),zone');
  assert.equal(s.matches({ app: 'db', tier: 'a', zone: 'z' }), true);
  assert.equal(s.matches({ app: 'db', tier: 'a' }), false);
  assert.throws(
    () => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt' }] }),
    /not a valid label selector operator/,
  );
  assert.throws(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] }), /can't be empty/);
});

// What kube-apiserver v1.37.1 answers (its 400 message) for each selector: apimachinery's
// labels.Parse wording, recorded from the real server (test/fidelity's label selector scenario
// compares the test server's answers with it on every run).
test('SelectorError.apiserverMessage is worded as apimachinery words it', () => {
  const cases: [string, string][] = [
    ['tier in (db', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a=b,', "found '', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['x in (a)b', "found 'b', expected: ',' or 'end of string'"],
    ['((', "found '(', expected: !, identifier, or 'end of string'"],
    [
      'a>x',
      `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      `a=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
    ],
    [
      '-bad=x',
      `unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseSelector(text),
      (e: unknown) =>
        e instanceof SelectorError &&
        e.apiserverMessage === message &&
        e.message.includes('at position') === !message.includes('Invalid value'),
      text,
    );
  }
});
