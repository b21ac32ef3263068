import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { unifiedDiff } from '../../../src/emit/diff.js';
import { SEED, runs } from '../../fuzz/support.js';

/** Applies a unified diff of one file to `text` strictly (context must match), as `patch` does. */
function applyPatch(text: string, diff: string): string {
  const src = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  let srcNoNl = text !== '' && !text.endsWith('\n');
  const out: string[] = [];
  let outNoNl = false;
  let pos = 0;
  const lines = diff.replace(/\n$/, '').split('\n').slice(2);
  for (let i = 0; i < lines.length;) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(lines[i]);
    assert.ok(m, `hunk header expected: ${lines[i]}`);
    const oldStart = Number(m[1]);
    const oldCount = m[2] === undefined ? 1 : Number(m[2]);
    const start = oldCount === 0 ? oldStart : oldStart - 1;
    while (pos < start) out.push(src[pos++]);
    i++;
    while (i < lines.length && !lines[i].startsWith('@@')) {
      const l = lines[i];
      const body = l.slice(1);
      if (l.startsWith('\\')) {
        // applies to the line before it
        if (lines[i - 1].startsWith('-')) srcNoNl = false;
        else outNoNl = true;
        if (lines[i - 1].startsWith(' ')) srcNoNl = false;
      } else if (l[0] === ' ') {
        assert.equal(src[pos], body, 'context line');
        out.push(src[pos++]);
      } else if (l[0] === '-') {
        assert.equal(src[pos], body, 'removed line');
        pos++;
      } else if (l[0] === '+') out.push(body);
      else assert.fail(`bad diff line ${JSON.stringify(l)}`);
      i++;
    }
  }
  while (pos < src.length) out.push(src[pos++]);
  if (pos === src.length && srcNoNl && out.length > 0 && !outNoNl) outNoNl = true;
  return out.length === 0 ? '' : `${out.join('\n')}${outNoNl ? '' : '\n'}`;
}

test('known diff: headers, 3 lines of context, merged hunks', () => {
  const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const b = [...a];
  b[4] = 'changed 5';
  b[8] = 'changed 9';
  b.splice(17, 1);
  const d = unifiedDiff('x.ts', `${a.join('\n')}\n`, 'x.ts', `${b.join('\n')}\n`);
  assert.equal(
    d,
    [
      '--- a/x.ts',
      '+++ b/x.ts',
      '@@ -2,11 +2,11 @@',
      ' line 2',
      ' line 3',
      ' line 4',
      '-line 5',
      '+changed 5',
      ' line 6',
      ' line 7',
      ' line 8',
      '-line 9',
      '+changed 9',
      ' line 10',
      ' line 11',
      ' line 12',
      '@@ -15,6 +15,5 @@',
      ' line 15',
      ' line 16',
      ' line 17',
      '-line 18',
      ' line 19',
      ' line 20',
      '',
    ].join('\n'),
  );
  assert.equal(unifiedDiff('x', 'same\n', 'x', 'same\n'), '');
});

test('empty sides and missing final newlines', () => {
  assert.equal(unifiedDiff(null, '', 'n.ts', 'a\nb\n'), '--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n');
  assert.equal(unifiedDiff('o.ts', 'a\n', null, ''), '--- a/o.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n');
  assert.equal(
    unifiedDiff('f', 'a\nb', 'f', 'a\nb\n'),
    '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n',
  );
});

test('property: applying the diff to the old text gives the new text', () => {
  const text = fc
    .array(fc.constantFrom('a', 'b', 'c', 'd', '', '  x'), { maxLength: 40 })
    .chain((ls) => fc.boolean().map((nl) => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : ''))));
  fc.assert(
    fc.property(text, text, fc.integer({ min: 0, max: 4 }), (a, b, context) => {
      const d = unifiedDiff('f', a, 'f', b, { context });
      if (a === b) return d === '';
      return applyPatch(a, d) === b;
    }),
    { numRuns: runs(400), seed: SEED },
  );
});

test('a region past maxCells is shown replaced whole (still a correct patch)', () => {
  const a = Array.from({ length: 50 }, (_, i) => `a${i % 7}`).join('\n') + '\n';
  const b = Array.from({ length: 50 }, (_, i) => `a${i % 5}`).join('\n') + '\n';
  const d = unifiedDiff('f', a, 'f', b, { maxCells: 10 });
  assert.equal(applyPatch(a, d), b);
});
