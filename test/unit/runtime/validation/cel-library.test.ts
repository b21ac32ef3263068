// The CEL evaluator and the Kubernetes libraries the corpus uses (strings, lists, regex, url,
// ip/cidr, quantity, duration/timestamp), each function with a passing and a failing case.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression } from '../../../../src/runtime/cel/compile.js';
import { CelEvalError, Duration, LiteralMap, type Value } from '../../../../src/runtime/cel/value.js';

function run(src: string, self: Value = null): Value {
  const p = compileExpression(src);
  if (typeof p === 'string') throw new Error(`does not compile: ${p}`);
  return p.program.run(self);
}

function fails(src: string, message: RegExp, self: Value = null): void {
  assert.throws(
    () => run(src, self),
    (e: unknown) => e instanceof CelEvalError && message.test(e.message),
  );
}

/** Refused when compiled (type check or Kubernetes' literal validators), with cel-go's text. */
function refused(src: string, message: RegExp): void {
  const p = compileExpression(src);
  assert.equal(typeof p, 'string', `${src} compiles`);
  assert.match(p as string, message);
}

describe('CEL core', () => {
  it('arithmetic is int64 with overflow and division errors; doubles are separate', () => {
    assert.equal(run('7 / 2'), 3n);
    assert.equal(run('-7 % 3'), -1n);
    assert.equal(run('7.0 / 2.0'), 3.5);
    fails('9223372036854775807 + 1', /integer overflow/);
    fails('1 / 0', /division by zero/);
    fails('1 % 0', /modulus by zero/);
    refused('1 + 1.0', /found no matching overload for '_\+_' applied to '\(int, double\)'/);
  });

  it('equality is heterogeneous across numbers at run time (dyn), refused across types when checked; ordering too', () => {
    refused('1 == 1.0', /found no matching overload for '_==_' applied to '\(int, double\)'/);
    assert.equal(run('dyn(1) == 1.0'), true);
    assert.equal(run('dyn(1u) == 1'), true);
    assert.equal(run("dyn(1) == '1'"), false);
    assert.equal(run('2 > 1.5'), true);
    assert.equal(run('[[1], [2]] == [[1], [2]]'), true);
    refused('[1, [2]] == [1, [2]]', /expected type 'int' but found 'list\(int\)'/);
    assert.equal(run("{'a': dyn(1)} == {'a': 1.0}"), true);
    refused("1 < 'a'", /found no matching overload for '_<_' applied to '\(int, string\)'/);
    fails("dyn(1) < 'a'", /no such overload/);
  });

  it('&& and || absorb errors when the other side decides', () => {
    assert.equal(run('false && (1 / 0 == 1)'), false);
    assert.equal(run('(1 / 0 == 1) && false'), false);
    assert.equal(run('(1 / 0 == 1) || true'), true);
    fails('(1 / 0 == 1) || false', /division by zero/);
  });

  it('macros: all, exists, exists_one, filter, map (with filter), has', () => {
    assert.equal(run('[1, 2, 3].all(x, x > 0)'), true);
    assert.equal(run('[1, 2, 3].exists(x, x > 2)'), true);
    assert.equal(run('[1, 2, 2].exists_one(x, x == 2)'), false);
    assert.deepEqual(run('[1, 2, 3].filter(x, x % 2 == 1)'), [1n, 3n]);
    assert.deepEqual(run('[1, 2, 3].map(x, x * 10)'), [10n, 20n, 30n]);
    assert.deepEqual(run('[1, 2, 3].map(x, x > 1, x * 10)'), [20n, 30n]);
    assert.equal(run("{'a': 1, 'b': 2}.all(k, k != 'c')"), true);
    assert.equal(run('[1, 0].exists(x, 1 / x == 1)'), true, 'an error in one element is absorbed by a true one');
    const self = new LiteralMap([['a', 1n]]);
    assert.equal(run('has(self.a) && !has(self.b)', self), true);
    fails('self.b', /no such key: b/, self);
  });

  it('index, in, size, ternary, type identifiers', () => {
    assert.equal(run('[1, 2][1]'), 2n);
    fails('[1][3]', /index out of bounds: 3/);
    assert.equal(run("'b' in ['a', 'b']"), true);
    assert.equal(run("'k' in {'k': 1}"), true);
    assert.equal(run("size('héllo') == 5 && size([1]) == 1 && 'abc'.size() == 3"), true);
    assert.equal(run("true ? 'y' : 'n'"), 'y');
    assert.equal(run("type(1) == int && type('') == string && type(1.0) == double"), true);
  });

  it('conversions: int, double, string, bool, bytes, dyn', () => {
    assert.equal(run("int('42') + int(3.9)"), 45n);
    fails("int('x')", /cannot parse/);
    assert.equal(run("double('1.5')"), 1.5);
    assert.equal(run('string(12) + string(true) + string(1.5)'), '12true1.5');
    assert.equal(run('string(1000000.0)'), '1e+06', 'doubles print as Go does');
    assert.equal(run("bool('true')"), true);
    assert.equal(run("string(bytes('hi'))"), 'hi');
    assert.equal(run('dyn(1) == 1'), true);
  });

  it('duration and timestamp', () => {
    assert.equal(run("duration('1h30m') == duration('90m')"), true);
    assert.equal(run("duration('1ms') < duration('1s')"), true);
    assert.ok(run("duration('1.5s')") instanceof Duration);
    assert.equal(run("string(duration('1m30s'))"), '90s');
    refused("duration('5 minutes')", /invalid duration argument/);
    fails('duration(self)', /time: unknown unit " minutes" in duration "5 minutes"/, '5 minutes');
    assert.equal(run("timestamp('2024-01-01T00:00:00Z') < timestamp('2024-01-01T00:00:01Z')"), true);
    assert.equal(run("timestamp('2024-01-01T01:00:00+01:00') == timestamp('2024-01-01T00:00:00Z')"), true);
    assert.equal(run("timestamp('2024-03-05T10:20:30Z').getFullYear()"), 2024n);
    assert.equal(run("timestamp('2024-03-05T10:20:30Z').getMonth()"), 2n);
    assert.equal(run("timestamp('2024-01-01T00:00:10Z') - timestamp('2024-01-01T00:00:00Z') == duration('10s')"), true);
    assert.equal(run("duration('2h').getHours()"), 2n);
    refused("timestamp('yesterday')", /invalid timestamp argument/);
    fails('timestamp(self)', /timestamp parse error/, 'yesterday');
  });
});

describe('strings library', () => {
  it('charAt, indexOf, lastIndexOf', () => {
    assert.equal(run("'hello'.charAt(1)"), 'e');
    assert.equal(run("'hello'.charAt(5)"), '');
    fails("'hello'.charAt(6)", /index out of range/);
    assert.equal(run("'hello'.indexOf('l')"), 2n);
    assert.equal(run("'hello'.indexOf('l', 3)"), 3n);
    assert.equal(run("'hello'.indexOf('z')"), -1n);
    assert.equal(run("'hello'.lastIndexOf('l')"), 3n);
  });

  it('lowerAscii, upperAscii, trim (no string reverse: Kubernetes has strings v2)', () => {
    assert.equal(run("'HeLLo'.lowerAscii()"), 'hello');
    assert.equal(run("'ÀB'.lowerAscii()"), 'Àb', 'ASCII only');
    assert.equal(run("'abc'.upperAscii()"), 'ABC');
    assert.equal(run("'  x \\n'.trim()"), 'x');
    refused("'abc'.reverse()", /found no matching overload for 'reverse' applied to 'string\.\(\)'/);
    assert.deepEqual(run('[1, 2].reverse()'), [2n, 1n]);
  });

  it('replace, split, substring, join', () => {
    assert.equal(run("'a-b-c'.replace('-', '+')"), 'a+b+c');
    assert.equal(run("'a-b-c'.replace('-', '+', 1)"), 'a+b-c');
    assert.deepEqual(run("'a/b/c'.split('/')"), ['a', 'b', 'c']);
    assert.deepEqual(run("'a/b/c'.split('/', 2)"), ['a', 'b/c']);
    assert.equal(run("'unix:///x'.substring(7, 8)"), '/');
    assert.equal(run("'hello'.substring(3)"), 'lo');
    fails("'abc'.substring(2, 1)", /invalid substring range/);
    fails("'abc'.substring(0, 9)", /index out of range/);
    assert.equal(run("['a', 'b'].join('-')"), 'a-b');
    assert.equal(run("['a', 'b'].join()"), 'ab');
  });

  it('startsWith, endsWith, contains, matches (RE2, unanchored)', () => {
    assert.equal(run("'unix:///run/x'.startsWith('unix://')"), true);
    assert.equal(run("'file.yaml'.endsWith('.yaml')"), true);
    assert.equal(run("'abc'.contains('b')"), true);
    assert.equal(run("'abc123'.matches('[0-9]+')"), true);
    assert.equal(run("'ABC'.matches('^(?i)abc$')"), true);
    assert.equal(run("matches('abc', '^b')"), false);
  });
});

describe('lists and regex libraries', () => {
  it('isSorted, sum, min, max, indexOf, lastIndexOf', () => {
    assert.equal(run('[1, 2, 3].isSorted()'), true);
    assert.equal(run("['b', 'a'].isSorted()"), false);
    assert.equal(run('[1, 2, 3].sum()'), 6n);
    assert.equal(run('[1.5, 2.5].sum()'), 4);
    assert.equal(run('[3, 1, 2].min()'), 1n);
    assert.equal(run('[3, 1, 2].max()'), 3n);
    fails('[].min()', /empty list/);
    assert.equal(run('[1, 2, 1].indexOf(1)'), 0n);
    assert.equal(run('[1, 2, 1].lastIndexOf(1)'), 2n);
    assert.equal(run("'hello'.indexOf('l')"), 2n, 'the strings overload still applies');
  });

  it('find, findAll', () => {
    assert.equal(run("'abc 123 def 456'.find('[0-9]+')"), '123');
    assert.equal(run("'abc'.find('[0-9]+')"), '');
    assert.deepEqual(run("'abc 123 def 456'.findAll('[0-9]+')"), ['123', '456']);
    assert.deepEqual(run("'1 2 3'.findAll('[0-9]', 2)"), ['1', '2']);
  });
});

describe('url library', () => {
  it('isURL follows url.ParseRequestURI (absolute URI or absolute path)', () => {
    assert.equal(run("isURL('https://example.com/path?q=1')"), true);
    assert.equal(run("isURL('/absolute/path')"), true);
    assert.equal(run("isURL('relative/path')"), false);
    assert.equal(run("isURL('')"), false);
    assert.equal(run("isURL('http://exa mple.com')"), false);
    assert.equal(run("isURL('oci://ghcr.io/org/chart')"), true);
  });

  it('url() and its getters', () => {
    assert.equal(run("url('HTTPS://user@example.com:8443/a%20b?x=1&x=2&y=3').getScheme()"), 'https');
    assert.equal(run("url('https://example.com:8443/p').getHost()"), 'example.com:8443');
    assert.equal(run("url('https://example.com:8443/p').getHostname()"), 'example.com');
    assert.equal(run("url('https://[::1]:80/p').getHostname()"), '::1');
    assert.equal(run("url('https://example.com:8443/p').getPort()"), '8443');
    assert.equal(run("url('https://example.com').getPort()"), '');
    assert.equal(run("url('https://example.com/a%20b').getEscapedPath()"), '/a%20b');
    assert.deepEqual(run("url('https://e.com/?x=1&x=2&y=3').getQuery()['x']"), ['1', '2']);
    fails("url('not a url')", /URL parse error during conversion from string/);
  });

  it('the corpus rule for Flux/Argo source URLs', () => {
    const rule =
      'isURL(self) ? (url(self).getScheme() in ["", "http", "https", "file", "oci"]) : (isURL("http://" + self) && url("http://" + self).getScheme() in ["", "http", "https", "file", "oci"])';
    assert.equal(run(rule, 'https://charts.example.com'), true);
    assert.equal(run(rule, 'charts.example.com/repo'), true);
    assert.equal(run(rule, 'ftp://charts.example.com'), false);
  });
});

describe('ip and cidr libraries', () => {
  it('isIP, ip(), family, predicates, string()', () => {
    assert.equal(run("isIP('10.0.0.1')"), true);
    assert.equal(run("isIP('10.0.0.256')"), false);
    assert.equal(run("isIP('::ffff:1.2.3.4')"), false, 'IPv4-mapped IPv6 is refused');
    assert.equal(run("ip('fd00::1').family()"), 6n);
    assert.equal(run("ip('127.0.0.1').isLoopback()"), true);
    assert.equal(run("ip('0.0.0.0').isUnspecified()"), true);
    assert.equal(run("ip('169.254.1.1').isLinkLocalUnicast()"), true);
    assert.equal(run("ip('8.8.8.8').isGlobalUnicast()"), true);
    assert.equal(run("ip('fd00:0::1') == ip('fd00::1')"), true);
    assert.equal(run("string(ip('fd00:0:0::1'))"), 'fd00::1');
    fails("ip('nope')", /parse error during conversion from string/);
  });

  it('isCIDR, cidr(), containsIP, containsCIDR, prefixLength, masked', () => {
    assert.equal(run("isCIDR('10.0.0.0/8')"), true);
    assert.equal(run("isCIDR('10.0.0.0/33')"), false);
    assert.equal(run("cidr('10.0.0.0/8').containsIP('10.1.2.3')"), true);
    assert.equal(run("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))"), false);
    assert.equal(run("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"), true);
    assert.equal(run("cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')"), false);
    assert.equal(run("cidr('10.1.2.3/8').prefixLength()"), 8n);
    assert.equal(run("string(cidr('10.1.2.3/8').masked())"), '10.0.0.0/8');
    assert.equal(run("string(cidr('10.1.2.3/8').ip())"), '10.1.2.3');
  });
});

describe('quantity library', () => {
  it('isQuantity, quantity(), comparison and equality by value', () => {
    assert.equal(run("isQuantity('500m')"), true);
    assert.equal(run("isQuantity('1.5Gi')"), true);
    assert.equal(run("isQuantity('five')"), false);
    assert.equal(run("quantity('1Gi') == quantity('1024Mi')"), true);
    assert.equal(run("quantity('1') == quantity('1000m')"), true);
    assert.equal(run("quantity('2Gi').isGreaterThan(quantity('2G'))"), true);
    assert.equal(run("quantity('100m').isLessThan(quantity('1'))"), true);
    assert.equal(run("quantity('1k').compareTo(quantity('1000'))"), 0n);
    fails("quantity('five')", /quantities must match/);
  });

  it('add, sub, asInteger, asApproximateFloat, sign, isInteger', () => {
    assert.equal(run("quantity('1').add(quantity('500m')) == quantity('1500m')"), true);
    assert.equal(run("quantity('1').add(2) == quantity('3')"), true);
    // sign is a function, not a method
    assert.equal(run("sign(quantity('1').sub(quantity('2')))"), -1n);
    assert.equal(run("quantity('2k').asInteger()"), 2000n);
    fails("quantity('500m').asInteger()", /cannot convert value to integer/);
    assert.equal(run("quantity('500m').asApproximateFloat()"), 0.5);
    assert.equal(run("quantity('500m').isInteger()"), false);
  });
});

describe('sets and string formatting', () => {
  it('sets.contains, sets.equivalent, sets.intersects', () => {
    assert.equal(run('sets.contains([1, 2, 3], [3, 1])'), true);
    assert.equal(run('sets.contains([1, 2], [4])'), false);
    assert.equal(run('sets.equivalent([1, 2, 2], [2, 1])'), true);
    assert.equal(run('sets.equivalent([1], [1, 3])'), false);
    assert.equal(run('sets.intersects([1, 2], [2, 5])'), true);
    assert.equal(run('sets.intersects([1], [5])'), false);
  });

  it('strings.quote and format', () => {
    assert.equal(run("strings.quote('a\"b\\n')"), '"a\\"b\\n"');
    assert.equal(run("'%s has %d replicas (%.2f%%)'.format(['db', 3, 12.345])"), 'db has 3 replicas (12.35%)');
    assert.equal(run("'%x %o %b'.format([255, 8, 5])"), 'ff 10 101');
    refused("'%d'.format(['x'])", /decimal clause can only be used on integers, was given string/);
    fails("'%d'.format([self])", /decimal clause can only be used on integers, was given string/, 'x');
  });
});

describe('optional library', () => {
  it('optional.of/none/ofNonZeroValue with hasValue, value, orValue, or', () => {
    assert.equal(run('optional.of(1).hasValue()'), true);
    assert.equal(run('optional.none().hasValue()'), false);
    assert.equal(run('optional.of(2).value()'), 2n);
    fails('optional.none().value()', /optional.none\(\) dereference/);
    assert.equal(run('optional.none().orValue(3)'), 3n);
    assert.equal(run("optional.ofNonZeroValue('').orValue('default')"), 'default');
    assert.equal(run("optional.ofNonZeroValue('x').orValue('default')"), 'x');
    assert.equal(run('optional.none().or(optional.of(4)).value()'), 4n);
    assert.equal(run('optional.of(1) == optional.of(1) && optional.none() == optional.none()'), true);
  });
});

describe('compilation', () => {
  it('unknown functions and methods are named; the same source compiles once', () => {
    assert.equal(
      compileExpression('self.foo(1) || bar()'),
      "ERROR: <input>:1:9: undeclared reference to 'foo' (in container '')\n | self.foo(1) || bar()\n | ........^\n" +
        "ERROR: <input>:1:19: undeclared reference to 'bar' (in container '')\n | self.foo(1) || bar()\n | ..................^",
    );
    assert.match(
      compileExpression('1 +') as string,
      /^ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting/,
    );
    const a = compileExpression('self == 1');
    assert.equal(
      (compileExpression('self == 1') as { program: unknown }).program,
      (a as { program: unknown }).program,
      'cached by source',
    );
  });

  it('every rule in the corpus compiles (see corpus.test.ts); namespaced unknowns are reported', () => {
    assert.match(
      compileExpression('math.greatest(1, 2)') as string,
      /undeclared reference to 'math' \(in container ''\)/,
    );
  });
});
