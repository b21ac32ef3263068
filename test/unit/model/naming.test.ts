import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareKubeVersions,
  isDns1123Label,
  isDns1123Subdomain,
  isKindName,
  isSafePathSegment,
  numberLiteral,
  pluralName,
  privateName,
  propertyAccess,
  propertyKey,
  publicName,
  safeIdentifier,
  tsString,
} from '../../../src/model/naming.js';

test('publicName makes UpperCamelCase identifiers', () => {
  assert.equal(publicName('DatabaseManager'), 'DatabaseManager');
  assert.equal(publicName('deploymentName'), 'DeploymentName');
  assert.equal(publicName('x-kubernetes-foo'), 'XKubernetesFoo');
  assert.equal(publicName('9lives'), '_9lives');
  assert.equal(publicName('a.b/c'), 'ABC');
  assert.equal(publicName(''), '_');
});

test('privateName lower-cases a leading acronym as a whole', () => {
  assert.equal(privateName('DatabaseManager'), 'databaseManager');
  assert.equal(privateName('HTTPRoute'), 'httpRoute');
  assert.equal(privateName('URL'), 'url');
  assert.equal(privateName('Default'), 'default_');
  assert.equal(privateName('Foo'), 'foo');
});

test('pluralName follows English rules', () => {
  assert.equal(pluralName('DatabaseManager'), 'DatabaseManagers');
  assert.equal(pluralName('Policy'), 'Policies');
  assert.equal(pluralName('Ingress'), 'Ingresses');
  assert.equal(pluralName('Endpoints'), 'Endpoints');
  assert.equal(pluralName('Gateway'), 'Gateways');
  assert.equal(pluralName('Box'), 'Boxes');
});

test('safeIdentifier avoids reserved words and bad characters', () => {
  assert.equal(safeIdentifier('default'), 'default_');
  assert.equal(safeIdentifier('string'), 'string_');
  assert.equal(safeIdentifier('a-b'), 'a_b');
  assert.equal(safeIdentifier('1x'), '_1x');
  assert.equal(safeIdentifier('ok'), 'ok');
});

test('propertyKey quotes only non-identifiers; propertyAccess brackets __proto__', () => {
  assert.equal(propertyKey('replicas'), 'replicas');
  assert.equal(propertyKey('default'), 'default');
  assert.equal(propertyKey('x-foo'), '"x-foo"');
  assert.equal(propertyKey("it's"), '"it\'s"');
  assert.equal(propertyKey('é'), 'é', 'prettier writes Unicode identifier keys bare');
  assert.equal(propertyAccess('o', 'a'), 'o.a');
  assert.equal(propertyAccess('o', '__proto__'), 'o["__proto__"]');
  assert.equal(propertyAccess('o', 'a.b'), 'o["a.b"]');
});

test('tsString round-trips any string through eval-free JSON parsing', () => {
  const samples = [
    'plain',
    "q'uote",
    'back\\slash',
    'nl\nx',
    'cr\r',
    '\u2028\u2029',
    '\u0000\u001f',
    'emoji 😀',
    'lone \ud800 x',
    'lone \udc00',
  ];
  for (const s of samples) {
    const lit = tsString(s);
    assert.ok(!/[\n\r\u2028\u2029]/.test(lit), `no raw line terminators in ${lit}`);
    // a double-quoted literal with our escapes is a JSON string; a single-quoted one after swapping quote style
    const json = lit.startsWith('"') ? lit : `"${lit.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`;
    assert.equal(JSON.parse(json), s);
  }
});

test('tsString quotes as prettier does: double quotes unless the text holds more double than single quotes', () => {
  assert.equal(tsString('plain'), '"plain"');
  assert.equal(tsString("it's"), '"it\'s"');
  assert.equal(tsString('say "hi"'), '\'say "hi"\'');
  assert.equal(tsString(`"a" 'b'`), `"\\"a\\" 'b'"`);
  assert.equal(tsString('back\\slash'), '"back\\\\slash"');
  assert.equal(numberLiteral(1e21), '1e21');
  assert.equal(numberLiteral(-0), '-0');
  assert.equal(numberLiteral(1.5e-7), '1.5e-7');
});

test('DNS and path segment checks', () => {
  assert.ok(isDns1123Subdomain('coolops.cn'));
  assert.ok(!isDns1123Subdomain('../x'));
  assert.ok(!isDns1123Subdomain('Coolops.cn'));
  assert.ok(isDns1123Label('databasemanagers'));
  assert.ok(!isDns1123Label('a.b'));
  assert.ok(isSafePathSegment('coolops.cn'));
  for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'c:', 'a\u0000']) assert.ok(!isSafePathSegment(bad), bad);
  assert.ok(isKindName('DatabaseManager'));
  assert.ok(!isKindName('../../x'));
  assert.ok(!isKindName('databaseManager'));
});

test('compareKubeVersions orders GA > beta > alpha > others', () => {
  const v = ['v1alpha1', 'foo', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v2', 'bar'];
  assert.deepEqual([...v].sort(compareKubeVersions), [
    'v2',
    'v1',
    'v2beta1',
    'v1beta2',
    'v1beta1',
    'v1alpha1',
    'bar',
    'foo',
  ]);
});
