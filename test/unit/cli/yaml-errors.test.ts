// A YAML syntax error is reported once per document, at its cause (not one YAML001 error per
// line the parser trips on after one unclosed `[`): an unclosed `[`, `{` or quote at that
// character, else the parser's first error by position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../golden/support.js';
import { cli } from './cli-support.js';

const crd = readFileSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), 'utf8');
const lines = crd.split('\n');
const descLine = lines.findIndex((l) => l.includes('description: "Database engine')); // 0-based

/** The fixture with the dbtype description turned into an unclosed flow sequence. */
function unclosedBracket(): { text: string; line: number; col: number } {
  const l = lines.slice();
  const at = l[descLine].indexOf('description:') + 'description: '.length;
  l[descLine] = `${l[descLine].slice(0, at)}[mysql, postgres`;
  return { text: l.join('\n'), line: descLine + 1, col: at + 1 };
}

const heads = (stderr: string): string[] => stderr.split('\n').filter((l) => /^\S/.test(l) && !l.startsWith('crdgen:'));

test('one unclosed "[" in the DatabaseManager CRD: one error, at the bracket, naming where the parser gave up', async () => {
  const { text, line, col } = unclosedBracket();
  const r = await cli(['validate', '-'], { stdin: text });
  assert.equal(r.code, 1);
  assert.deepEqual(heads(r.stderr), [
    `<stdin>:${line}:${col} error YAML001 unclosed "[": a flow sequence must end with "]"`,
  ]);
  assert.match(
    r.stderr,
    new RegExp(
      `hint: the parser gave up at ${line + 1}:\\d+ \\(Flow sequence in block collection must be sufficiently indented and end with a \\]\\); add the "\\]", or write one "- item" per line\\n`,
    ),
  );
  assert.match(
    r.stderr,
    /\ncrdgen: 1 error\n$/,
    'validate never writes: its closing line does not say nothing was written',
  );
});

test('several broken documents in one file: one error each, in line order', async () => {
  const { text, line, col } = unclosedBracket();
  const tabs = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n';
  const quote = 'a: "never closed\nb: 1\n';
  const parts = [crd.trimEnd(), text.trimEnd(), tabs.trimEnd(), 'x: {a: 1\ny: 2', quote];
  const file = parts.join('\n---\n');
  // the first line of each document: after the earlier ones and their `---` lines
  const starts = parts.map((_, i) => 1 + parts.slice(0, i).reduce((n, p) => n + p.split('\n').length + 1, 0));
  const [, bracketDoc, tabsDoc, flowDoc, quoteDoc] = starts as [number, number, number, number, number];
  const r = await cli(['validate', '-', '--json'], { stdin: file });
  assert.equal(r.code, 1);
  const doc = JSON.parse(r.stdout) as {
    diagnostics: Array<{ code: string; line: number; col: number; message: string }>;
  };
  assert.deepEqual(
    doc.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`),
    [
      `${bracketDoc + line - 1}:${col} YAML001 unclosed "[": a flow sequence must end with "]"`,
      `${tabsDoc + 3}:1 YAML001 Tabs are not allowed as indentation`,
      `${flowDoc}:4 YAML001 unclosed "{": a flow mapping must end with "}"`,
      `${quoteDoc}:4 YAML001 unclosed '"': a double-quoted string must end with '"'`,
    ],
  );
});

test('an error that is not an unclosed bracket is reported once, at the first position', async () => {
  const r = await cli(['validate', '-'], { stdin: 'a: [1, 2]\nb: x\n  c: 1\nd: e: f\n' });
  assert.equal(r.code, 1);
  assert.deepEqual(heads(r.stderr), ['<stdin>:2:4 error YAML001 Nested mappings are not allowed in compact mappings']);
});

test('a key dedented by one space: reported at the key, with the column its siblings start at', async () => {
  const l = lines.slice();
  const at = l.findIndex((x) => x.trim() === 'replicas:'); // 0-based; a key of spec.properties
  const indent = l[at].length - l[at].trimStart().length;
  l[at] = l[at].slice(1);
  const r = await cli(['validate', '-'], { stdin: l.join('\n') });
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `<stdin>:${at + 1}:${indent} error YAML001 All mapping items must start at the same column\n  hint: replicas: starts at column ${indent}, deploymentName: above it at column ${indent + 1}: the keys of one mapping start in the same column (YAML nests by indentation)\ncrdgen: 1 error\n`,
  );
  // indented one space too far: the siblings are still the keys left of its own block
  l[at] = `  ${l[at]}`;
  const over = await cli(['validate', '-'], { stdin: l.join('\n') });
  assert.match(
    over.stderr,
    new RegExp(
      `^<stdin>:${at + 1}:${indent + 2} error YAML001 .*\\n {2}hint: replicas: starts at column ${indent + 2}, deploymentName: above it at column ${indent + 1}:`,
    ),
  );
});

test("a key without its colon: the parser's message, and a hint with the line as it was probably meant", async () => {
  for (const [wrong, meant] of [
    ['group coolops.cn', 'group: coolops.cn'],
    ['group:coolops.cn', 'group: coolops.cn'],
  ]) {
    const at = lines.findIndex((x) => x.trim() === 'group: coolops.cn');
    const r = await cli(['validate', '-'], { stdin: crd.replace('group: coolops.cn', wrong) });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `<stdin>:${at + 1}:3 error YAML001 Implicit keys need to be on a single line\n  hint: a key is followed by ": " (a colon and a space): did you mean "${meant}"?\ncrdgen: 1 error\n`,
      wrong,
    );
  }
});
