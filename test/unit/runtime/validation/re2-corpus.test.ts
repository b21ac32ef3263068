// The corpus's patterns (OpenAPI `pattern` and CEL matches/find/findAll literals), and patterns of
// the same kinds written here, match what they matched before crdgen used a linear-time RE2
// engine: the old RE2 → RegExp translation (test/support/re2-legacy.ts) and the engine agree on
// generated strings — strings each pattern matches (fast-check's stringMatching) and edits of them.
// Inputs with characters the old translation matched unlike Go (`\v` in `\s`, `\r` and U+2028 in
// `.`, non-ASCII case folding) are left out: Go's verdicts on those are checked by re2-go.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileRe2 } from '../../../../src/runtime/validation/re2.js';
import { corpusPatterns } from '../../../support/corpus-patterns.js';
import { compileRe2 as compileLegacy } from '../../../support/re2-legacy.js';

/** Patterns of the kinds CRDs carry, written for this test (not from any CRD set). */
const LIKE_CORPUS = [
  '^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$',
  '^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$',
  '^(\\d+|\\*)(/\\d+)?([ \\t]+(\\d+|\\*)(/\\d+)?){4}$',
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$',
  '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
  '^([a-z0-9]+([._-][a-z0-9]+)*/)*[a-z0-9]+([._-][a-z0-9]+)*(:[\\w][\\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$',
  '^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]{12}:.+$',
  '^[A-Z_][A-Z0-9_]*$',
  '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$',
  '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
  '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
  '^(?i)(true|false|yes|no)$',
  '^[a-z]([-a-z0-9]*[a-z0-9])?$',
  '^(Always|Never|IfNotPresent)$',
  '^[0-9]+(\\.[0-9]+)?%$',
  '^(tcp|udp|sctp)/[0-9]{1,5}$',
  '^\\S+$',
  '^[[:alnum:]_-]+$',
];

/** Characters where the old translation and Go differ (see the header). */
const DIFFERS = /[\v\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u017f\u212a]/;

const ALPHABET = [...'aZ09-_./:@%*+?()[]{}|^$\\ \t\n!#,;=~`\'"', 'é', '😀'];

/** Strings the pattern matches, and one-character edits of each. */
function samples(pattern: RegExp, seed: number): string[] {
  const matching = fc.sample(fc.stringMatching(pattern), { seed, numRuns: 80 });
  const edits = fc.sample(
    fc.tuple(fc.constantFrom(...matching), fc.nat(), fc.constantFrom(...ALPHABET), fc.integer({ min: 0, max: 2 })),
    { seed: seed + 1, numRuns: 240 },
  );
  const edited = edits.map(([s, at, c, kind]) => {
    const i = s.length === 0 ? 0 : at % s.length;
    return kind === 0
      ? s.slice(0, i) + c + s.slice(i)
      : kind === 1
        ? s.slice(0, i) + s.slice(i + 1)
        : s.slice(0, i) + c + s.slice(i + 1);
  });
  return [...new Set(['', ' ', 'a', '-', ...matching, ...edited])].filter((s) => !DIFFERS.test(s));
}

describe('RE2 engine: patterns match what they matched', () => {
  const corpus = corpusPatterns();

  it('the corpus has its patterns', () => {
    assert.ok(corpus.filter((p) => p.use === 'pattern').length >= 40, 'OpenAPI patterns');
    assert.ok(corpus.filter((p) => p.use === 'cel').length >= 4, 'CEL regexes');
  });

  for (const [label, list] of [
    ['corpus', corpus.map((p) => p.pattern)],
    ['written like the corpus', LIKE_CORPUS],
  ] as const) {
    it(`${label}: the old translation and the engine agree on generated strings`, () => {
      const wrong: string[] = [];
      let compared = 0;
      list.forEach((pattern, n) => {
        const legacy = compileLegacy(pattern);
        const engine = compileRe2(pattern);
        const inputs = samples(legacy, 1000 + n);
        const verdicts = new Set<boolean>();
        for (const s of inputs) {
          const was = legacy.test(s);
          verdicts.add(was);
          compared++;
          if (engine.test(s) !== was) wrong.push(`${JSON.stringify(pattern)} on ${JSON.stringify(s)}: was ${was}`);
        }
        assert.ok(verdicts.has(true), `${pattern}: no generated string matches`);
      });
      assert.ok(compared >= list.length * 50, `only ${compared} comparisons`);
      assert.deepEqual(wrong, []);
    });
  }
});
