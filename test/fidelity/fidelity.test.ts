// Fidelity, measured: every scenario of scenarios.ts is sent to crdgen's test server and to the
// real kube-apiserver v1.37; every response is compared (normalised: uids, timestamps and
// resourceVersion values; their order kept). Prints `fidelity: N/M responses identical`; fails
// on a difference that known.ts does not list with its reason, and on a listed one that is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KNOWN } from './known.js';
import { formatReport, runFidelity } from './run.js';

const matches = (k: (typeof KNOWN)[number], d: { scenario: string; step: string; field: string }): boolean =>
  k.scenario === d.scenario &&
  k.step === d.step &&
  (typeof k.field === 'string' ? k.field === d.field : k.field.test(d.field));

test(
  'fidelity: crdgen testenv answers as kube-apiserver v1.37 does, but for the known divergences',
  { timeout: 15 * 60_000 },
  async (t) => {
    const report = await runFidelity();
    t.diagnostic(formatReport(report).split('\n')[0]);
    const unknown = report.differences.filter((d) => !KNOWN.some((k) => matches(k, d)));
    assert.deepEqual(
      unknown.map(
        (d) =>
          `${d.scenario} / ${d.step} / ${d.field}: testenv ${JSON.stringify(d.testenv)} | real ${JSON.stringify(d.real)}`,
      ),
      [],
    );
    const stale = KNOWN.filter((k) => !report.differences.some((d) => matches(k, d)));
    assert.deepEqual(
      stale.map((k) => `${k.scenario} / ${k.step}`),
      [],
      'known divergences that no longer occur: remove them',
    );
    assert.ok(report.total >= 200, `${report.total} responses compared`);
  },
);

test('docs/testing.md lists every known divergence with its reason', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/testing.md', import.meta.url)), 'utf8');
  for (const k of KNOWN) assert.ok(doc.includes(k.reason), `docs/testing.md lacks: ${k.reason}`);
});
