// The CRD differential suite, real half: the recording the fast half (verdicts.test.ts) judges
// crdgen by is kube-apiserver v1.37.1's own — every case is sent to a live one again (dry run,
// fieldValidation=Strict) and must get the recorded status and message, so that neither the
// cases nor the apiserver drift from it unnoticed. `npm run crd-verdicts:record` re-records.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { realBackend } from '../support/backends.js';
import { verdictCases } from './cases.js';
import { comparableMessage, pool, readRecording, send } from './recording.js';

describe('the CRD verdict recording is kube-apiserver v1.37.1 answer for answer', () => {
  let server: ApiServerHandle & { version?: string };
  before(async () => {
    server = await realBackend.start();
  });
  after(async () => {
    await server?.stop();
  });

  it('every case gets the recorded status and message from a live kube-apiserver', async () => {
    const { meta, byId } = readRecording();
    assert.equal(server.version, meta.apiserver, 'the recording is of this apiserver version');
    const cases = verdictCases();
    const drift: string[] = [];
    await pool(cases, 4, async (c) => {
      const a = await send(server, c);
      const rec = byId.get(c.id);
      if (!rec) return void drift.push(`${c.id}: not recorded`);
      if (a.status !== rec.status || comparableMessage(a.message) !== comparableMessage(rec.message))
        drift.push(
          `${c.id}:\n  recorded ${rec.status} ${rec.message ?? ''}\n  live     ${a.status} ${a.message ?? ''}`,
        );
    });
    assert.deepEqual(
      drift.slice(0, 10),
      [],
      `${drift.length} answers differ from the recording: npm run crd-verdicts:record, then review its diff`,
    );
  });
});
