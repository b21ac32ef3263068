// The informer benchmark's pre-rendered watch source (bench/lib/replay-server.ts): it must
// serve exactly the bytes crdgen/testing sent for a replay, to watches only, and its
// kubeconfig must point a real client at it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureWatch, retargetKubeconfig, startReplayServer } from '../../../bench/lib/replay-server.js';
import { startTestApiServer, type TestApiServer } from '../../../src/testing/index.js';
import { loadConfig, RestClient } from '../../../src/runtime/index.js';

const CRD = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'databasemanager', 'crd.yaml');
const PATH = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

const dm = (i: number) => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name: `db-${i}`, namespace: 'default' },
  spec: { deploymentName: `db-${i}`, replicas: 1, dbtype: 'mysql' },
});

describe('bench replay server', () => {
  let env: TestApiServer;
  let dir: string;
  let rv: string;
  before(async () => {
    env = await startTestApiServer({ crds: [CRD] });
    dir = mkdtempSync(join(tmpdir(), 'crdgen-replay-test-'));
    const list = (await (await fetch(`${env.url}${PATH}`)).json()) as { metadata: { resourceVersion: string } };
    rv = list.metadata.resourceVersion;
    await env.create([dm(0), dm(1), dm(2)]);
  });
  after(async () => {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('captures the first N events of a watch, exactly, and replays them to a real client', async () => {
    const file = join(dir, 'stream.ndjson');
    await captureWatch(`${env.url}${PATH}?watch=true&resourceVersion=${rv}`, 2, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'ends with the newline of the second event');
    assert.deepEqual(
      lines
        .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } })
        .map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'db-0'],
        ['ADDED', 'db-1'],
      ],
    );

    const replay = await startReplayServer(file);
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      retargetKubeconfig(env.kubeconfigPath, replay.url, kubeconfig);
      const client = new RestClient(await loadConfig({ path: kubeconfig }));
      try {
        const w = await client.watch<{ metadata: { name: string } }>(PATH, { resourceVersion: '1' });
        const names: string[] = [];
        for await (const ev of w) {
          names.push((ev.object as { metadata: { name: string } }).metadata.name);
          if (names.length === 2) break;
        }
        w.stop();
        assert.deepEqual(names, ['db-0', 'db-1']);
      } finally {
        client.close();
      }
      const notWatch = await fetch(`${replay.url}${PATH}`);
      assert.equal(notWatch.status, 404);
      assert.equal(((await notWatch.json()) as { reason: string }).reason, 'NotFound');
    } finally {
      await replay.stop();
    }
  });

  it('fails, writing nothing, when the watch ends before N events', async () => {
    const file = join(dir, 'short.ndjson');
    const replay = await startReplayServer(join(dir, 'stream.ndjson'));
    try {
      // The replay holds the connection open after its 2 events: abort it to end the stream.
      const url = `${replay.url}${PATH}?watch=true`;
      const capture = captureWatch(url, 3, file);
      setTimeout(() => void replay.stop(), 200);
      await assert.rejects(capture, /ended after 2 of 3 events|terminated|fetch failed|other side closed/);
      assert.equal(existsSync(file), false, 'no partial capture is written');
    } finally {
      await replay.stop().catch(() => {});
    }
  });
});
