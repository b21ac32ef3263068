// The list parser that parses a list's items as its bytes arrive: whatever the chunks, the result
// is JSON.parse's; items cut out one by one wherever the document has them (before or after its
// metadata, pretty-printed or not); strings with braces, brackets, quotes and multi-byte
// characters split anywhere; anything that is not a list of objects parsed whole; a truncated
// body refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListStreamParser } from '../../../../src/runtime/client/list-stream.js';

const item = (i: number): Record<string, unknown> => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: {
    name: `db-${i}`,
    annotations: { tricky: '} ] { [ " \\ ,"items":[', unicode: 'é漢字😀' },
    labels: { items: 'x' },
  },
  spec: { replicas: i, tags: ['a', ['b', { c: '}' }]], nothing: null, yes: true, n: -1.5e3 },
});

const DOCS: Record<string, string> = {
  'custom resource list (items before metadata)': JSON.stringify({
    apiVersion: 'coolops.cn/v1alpha1',
    items: [item(0), item(1), item(2)],
    kind: 'DatabaseManagerList',
    metadata: { continue: 'eyJ9', resourceVersion: '42' },
  }),
  'typed list (metadata first)': JSON.stringify({
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '7', items: ['not these'] },
    items: [item(3), item(4)],
  }),
  'pretty-printed': JSON.stringify({ kind: 'L', items: [item(5), item(6)], metadata: {} }, null, 2),
  'no items': JSON.stringify({ kind: 'L', items: [], metadata: { resourceVersion: '1' } }),
  'an "items" string value first': JSON.stringify({ note: 'items', nested: { items: [1, 2] }, items: [item(7)] }),
  'items that are not objects': JSON.stringify({ kind: 'L', items: [item(8), 1, 'two', [3], null] }),
  'not an object': JSON.stringify([item(9)]),
};

function parseInChunks(text: string, cuts: number[]): unknown {
  const bytes = Buffer.from(text);
  const p = new ListStreamParser<unknown>();
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    p.push(bytes.subarray(at, c));
    at = c;
  }
  return p.end();
}

test('every split point, and many random splits, give what JSON.parse gives', () => {
  for (const [name, text] of Object.entries(DOCS)) {
    const want = JSON.parse(text) as unknown;
    const n = Buffer.byteLength(text);
    for (let cut = 0; cut <= n; cut++) assert.deepEqual(parseInChunks(text, [cut]), want, `${name}: cut at ${cut}`);
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 20) }, () => Math.floor(random() * n)).sort(
        (a, b) => a - b,
      );
      assert.deepEqual(parseInChunks(text, cuts), want, `${name}: cuts ${cuts.join(',')}`);
    }
  }
});

test('items are parsed as their bytes arrive, before the end of the document', () => {
  const text = DOCS['custom resource list (items before metadata)'];
  const p = new ListStreamParser<{ metadata: { name: string } }>();
  const cut = text.indexOf('"kind":"DatabaseManagerList"');
  p.push(Buffer.from(text.slice(0, cut)));
  assert.deepEqual(
    p.items.map((o) => o.metadata.name),
    ['db-0', 'db-1', 'db-2'],
  );
  p.push(Buffer.from(text.slice(cut)));
  assert.equal(p.end().metadata && (p.end().metadata as { resourceVersion: string }).resourceVersion, '42');
});

test('a truncated body or one with something after the document is refused', () => {
  const text = DOCS['typed list (metadata first)'];
  for (const cut of [1, text.indexOf('"items"') + 12, text.length - 1]) {
    const p = new ListStreamParser<unknown>();
    p.push(Buffer.from(text.slice(0, cut)));
    assert.throws(() => p.end(), SyntaxError, `cut at ${cut}`);
  }
  const p = new ListStreamParser<unknown>();
  p.push(Buffer.from(`${text} x`));
  assert.throws(() => p.end(), SyntaxError);
});
