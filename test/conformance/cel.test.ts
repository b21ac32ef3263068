// CEL as Kubernetes runs it, measured on data nobody here wrote (../shared/conformance/cel, see its
// SOURCES.md): google/cel-spec's conformance files, the test tables of Kubernetes' CEL libraries
// and the rule/object tables of apiextensions-apiserver's CEL validation tests. Every applicable
// test must pass; skips are only for what Kubernetes' CEL environment does not have, each with its
// reason — and docs/validation.md lists them (this test keeps that list exact).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CEL_DATA, runCelSpec, type Outcome } from './cel/cel-spec.js';
import { runK8sLibrary } from './cel/k8s-library.js';
import { runK8sValidation } from './cel/k8s-validation.js';

const DOCS = join(import.meta.dirname, '../../docs/validation.md');

function summary(out: Outcome[]): { pass: number; fail: number; skip: number } {
  const c = { pass: 0, fail: 0, skip: 0 };
  for (const o of out) c[o.status]++;
  return c;
}

function failures(out: Outcome[]): string[] {
  return out.filter((o) => o.status === 'fail').map((o) => `${o.id}: ${o.detail}`);
}

/** The skip table as docs/validation.md prints it: `| count | reason |`, by count then reason. */
export function skipTable(out: Outcome[]): string {
  const by = new Map<string, number>();
  for (const o of out) if (o.status === 'skip') by.set(o.reason!, (by.get(o.reason!) ?? 0) + 1);
  return [...by]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([r, n]) => `| ${n} | ${r} |`)
    .join('\n');
}

test('the CEL conformance data is there (CI puts shared/ beside the clone)', () => {
  assert.ok(existsSync(join(CEL_DATA, 'SOURCES.md')), `conformance data not found at ${CEL_DATA}`);
});

test('cel-spec conformance: every test in Kubernetes’ environment passes; the skips are the documented ones', (t) => {
  const out = runCelSpec();
  const c = summary(out);
  t.diagnostic(`cel-spec: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped (of ${out.length})`);
  assert.deepEqual(failures(out), []);
  assert.ok(c.pass >= 1200, `only ${c.pass} passed`);
  const docs = readFileSync(DOCS, 'utf8');
  const m = /<!-- cel-spec-skips:begin -->\n([\s\S]*?)\n<!-- cel-spec-skips:end -->/.exec(docs);
  assert.ok(m, 'docs/validation.md has the cel-spec skip table between its markers');
  assert.equal(
    m[1]
      .split('\n')
      .filter((l) => /^\| \d/.test(l))
      .join('\n'),
    skipTable(out),
    'docs/validation.md lists exactly the skips (count and reason)',
  );
});

test('Kubernetes’ CEL library tables (ip, cidr, quantity, semver, format): every entry passes', (t) => {
  const out = runK8sLibrary();
  const c = summary(out);
  t.diagnostic(`k8s library tables: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped`);
  assert.deepEqual(failures(out), []);
  assert.equal(c.skip, 0);
  assert.ok(c.pass >= 350);
});

test('apiextensions-apiserver’s CEL validation tables (rules × objects): every check passes', (t) => {
  const out = runK8sValidation();
  const c = summary(out);
  t.diagnostic(`k8s validation tables: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped`);
  assert.deepEqual(failures(out), []);
  assert.equal(c.skip, 0);
  assert.ok(c.pass >= 800);
});
