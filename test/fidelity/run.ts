// Runs every fidelity scenario on both backends and compares the answers:
//   npm run fidelity            (prints `fidelity: N/M responses identical` and each difference)
// The test (fidelity.test.ts) runs the same and fails on any difference not listed in known.ts.
import { fileURLToPath } from 'node:url';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { raw } from '../support/raw.js';
import { realBackend, testenvBackend } from '../support/backends.js';
import { compare, runScenario } from './harness.js';
import type { Difference, Recorded } from './harness.js';
import { SCENARIOS } from './scenarios.js';

export const WIDGETS_CRD = fileURLToPath(new URL('./widgets-crd.yaml', import.meta.url));

export interface FidelityReport {
  identical: number;
  total: number;
  differences: Difference[];
  records: { scenario: string; testenv: Recorded[]; real: Recorded[] }[];
}

async function namespace(h: ApiServerHandle, name: string): Promise<void> {
  const r = await raw(h, 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  if (r.status !== 201) throw new Error(`cannot create namespace ${name} on ${h.backend}: ${r.status} ${r.text}`);
}

/** Starts both backends, runs the scenarios (`only`: names to run), stops both. */
export async function runFidelity(only?: (name: string) => boolean): Promise<FidelityReport> {
  // The real side runs the controllers whose work testenv does in-process (garbage collection and
  // namespace cleanup), and none that would race the scenarios (no Deployment controller).
  const [testenv, real] = await Promise.all([
    testenvBackend.start({ crds: [WIDGETS_CRD] }),
    realBackend.start({ crds: [WIDGETS_CRD], controllers: ['garbage-collector-controller', 'namespace-controller'] }),
  ]);
  try {
    const report: FidelityReport = { identical: 0, total: 0, differences: [], records: [] };
    for (const [i, s] of SCENARIOS.entries()) {
      if (only && !only(s.name)) continue;
      const ns = `fid-${i}`;
      await Promise.all([namespace(testenv, ns), namespace(real, ns)]);
      // one backend after the other: timing-dependent steps see the same quiet server
      const a = await runScenario(testenv, s, ns);
      const b = await runScenario(real, s, ns);
      const c = compare(s.name, a, b);
      report.identical += c.identical;
      report.total += c.total;
      report.differences.push(...c.differences);
      report.records.push({ scenario: s.name, testenv: a, real: b });
    }
    return report;
  } finally {
    await Promise.all([testenv.stop(), real.stop()]);
  }
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** The report as text: the summary line first, then one line per difference. */
export function formatReport(r: FidelityReport): string {
  const lines = [`fidelity: ${r.identical}/${r.total} responses identical`];
  for (const d of r.differences)
    lines.push(`- ${d.scenario} / ${d.step} / ${d.field}: testenv ${show(d.testenv)} | real ${show(d.real)}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const filter = process.argv[2];
  const r = await runFidelity(filter ? (n) => n.includes(filter) : undefined);
  console.log(formatReport(r));
  if (process.env.FIDELITY_DUMP) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(process.env.FIDELITY_DUMP, JSON.stringify(r.records, null, 2));
  }
}
