// The CRD differential suite, fast half: every case of cases.ts (the corpus as it is and mutated,
// the synthetic CRD's families at every schema position, Kubernetes' CEL tables) judged by
// crdgen — `crdgen validate`'s reader and the test server's CRD admission, one checker — and
// compared with kube-apiserver v1.37.1's verdict recorded in recording.json (`npm run
// crd-verdicts:record` re-records it; recording.test.ts checks it against a live kube-apiserver).
// Prints the agreement per family. Fails on a difference not listed in known.ts.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { startTestApiServer, type ApiServerHandle } from '../../src/testing/index.js';
import { bodyHash, FAMILIES, verdictCases, type Family, type VerdictCase } from './cases.js';
import { KNOWN_VERDICT_DIFFERENCES } from './known.js';
import { comparableMessage, pool, readRecording, send, type Answer, type RecordedCase } from './recording.js';

const cases = verdictCases();
const { meta, byId } = readRecording();

interface Tally {
  cases: number;
  agree: number;
  known: number;
}

/** Per-family counts, and the differences (unlisted, and listed ones that agree now). */
function compare(
  which: string,
  list: readonly VerdictCase[],
  verdict: (c: VerdictCase, rec: RecordedCase) => { accepted: boolean; detail: string },
): { tally: Map<Family, Tally>; problems: string[] } {
  const tally = new Map<Family, Tally>();
  const problems: string[] = [];
  for (const c of list) {
    const rec = byId.get(c.id)!;
    const t = tally.get(c.family) ?? { cases: 0, agree: 0, known: 0 };
    tally.set(c.family, t);
    t.cases++;
    const v = verdict(c, rec);
    const agrees = v.accepted === (rec.status === 201);
    const known = KNOWN_VERDICT_DIFFERENCES.get(c.id);
    if (agrees) t.agree++;
    else if (known !== undefined) t.known++;
    if (agrees && known !== undefined) problems.push(`${c.id}: agrees now, remove it from known.ts (${known})`);
    if (!agrees && known === undefined)
      problems.push(
        `${c.id}: ${which} ${v.accepted ? 'accepts' : 'refuses'} it, kube-apiserver ${rec.status === 201 ? 'accepts it' : `answers ${rec.status}: ${rec.message ?? ''}`}${v.detail ? `\n    ${which}: ${v.detail}` : ''}`,
      );
  }
  return { tally, problems };
}

function report(t: TestContext, title: string, tally: Map<Family, Tally>): string {
  const lines = [`${title} (kube-apiserver ${meta.apiserver}, recorded):`];
  let all = 0;
  let agree = 0;
  let known = 0;
  for (const f of FAMILIES) {
    const x = tally.get(f);
    if (!x) continue;
    all += x.cases;
    agree += x.agree;
    known += x.known;
    lines.push(
      `  ${f.padEnd(18)} ${String(x.agree).padStart(5)} / ${String(x.cases).padEnd(5)}${x.known ? ` (${x.known} known)` : ''}`,
    );
  }
  const figure = `${title}: ${agree} of ${all} verdicts agree (${((100 * agree) / all).toFixed(1)} %)${known ? `; ${known} known, listed in known.ts` : ''}`;
  lines.push(`  ${figure}`);
  for (const l of lines) t.diagnostic(l);
  return figure;
}

describe('CRD verdicts: crdgen against kube-apiserver v1.37.1 (recorded)', () => {
  let server: ApiServerHandle;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server?.stop();
  });

  it(`the recording holds every case as generated now (${cases.length} cases)`, () => {
    assert.ok(cases.length >= 1000, `at least 1,000 cases (${cases.length})`);
    const stale = cases.filter((c) => byId.get(c.id)?.input !== bodyHash(c.body)).map((c) => c.id);
    assert.deepEqual(
      stale.slice(0, 20),
      [],
      `${stale.length} cases are not recorded as they are now: npm run crd-verdicts:record`,
    );
    const families = new Set(cases.map((c) => c.family));
    assert.deepEqual(
      FAMILIES.filter((f) => !families.has(f)),
      [],
    );
  });

  it("crdgen validate's checker gives kube-apiserver's verdicts", (t) => {
    const list = cases.filter((c) => c.serverOnly === undefined);
    const { tally, problems } = compare('crdgen validate', list, (c) => {
      const r = readCrdInputs([{ file: 'crd.json', content: c.body }]);
      const err = r.diagnostics.find((d) => d.severity === 'error');
      return { accepted: !err, detail: err ? `${err.code} ${err.field ?? err.path ?? ''}: ${err.message}` : '' };
    });
    report(t, 'crdgen validate', tally);
    assert.deepEqual(problems, []);
  });

  it("the test server's CRD admission gives kube-apiserver's verdicts (and its messages)", async (t) => {
    const answers = new Map<string, Answer>();
    await pool(cases, 4, async (c) => void answers.set(c.id, await send(server, c)));
    const { tally, problems } = compare('the test server', cases, (c) => {
      const a = answers.get(c.id)!;
      return { accepted: a.status === 201, detail: a.status === 201 ? '' : `${a.status} ${a.message ?? ''}` };
    });
    report(t, 'crdgen testenv', tally);
    // the messages, where a user would compare them (the same status and text)
    let same = 0;
    for (const c of cases) {
      const rec = byId.get(c.id)!;
      const a = answers.get(c.id)!;
      if (a.status === rec.status && comparableMessage(a.message) === comparableMessage(rec.message)) same++;
    }
    const messages = `crdgen testenv: ${same} of ${cases.length} answers have kube-apiserver's status and message (${((100 * same) / cases.length).toFixed(1)} %)`;
    t.diagnostic(messages);
    assert.deepEqual(problems, []);
  });
});
