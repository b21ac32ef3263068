// No secret in logs: an operator run at --log-level debug with a token-bearing kubeconfig (leader
// election, a controller's list and watch, a failing get, bad server answers) never prints the
// token; neither does the test server's request log (-v), nor the error for a kubeconfig that does
// not parse.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { api, DM_CRD, dm } from '../testing/helpers.js';

const TOKEN = `crdgen-secret-${Math.random().toString(36).slice(2)}-token`;
const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-secret`;

const OPERATOR = `
import { newControllerManagedBy, restBackend, runOperator, typedResource } from ${JSON.stringify(join(ROOT, 'src/runtime/index.ts'))};
const dm = typedResource({ group: 'coolops.cn', version: 'v1alpha1', resource: 'databasemanagers', kind: 'DatabaseManager', listKind: 'DatabaseManagerList', namespaced: true });
let done = false;
const code = await runOperator({
  name: 'tokentest',
  setupWithManager: (manager, ctx) => {
    const dms = restBackend(ctx.config).resource(dm, 'default');
    newControllerManagedBy(manager).for(dm).complete(async () => {
      if (done) return;
      done = true;
      ctx.logger.debug({ n: (await dms.list()).items.length }, 'listed');
      for (const name of ['missing', 'fails']) {
        try { await dms.get(name); } catch (e) { ctx.logger.error({ err: e }, 'get failed'); ctx.logger.debug({ e }, 'raw error'); }
      }
      process.stdout.write('READY\\n');
    });
  },
}, process.argv.slice(2));
process.exit(code);
`;

function run(args: string[], untilReady: boolean): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'operator.mts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (untilReady && out.includes('READY\n')) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}

let dir: string;

describe('no secret in logs', () => {
  let env: TestApiServer;
  const serverLog: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crdgen-token-'));
    writeFileSync(join(dir, 'operator.mts'), OPERATOR);
    env = await startTestApiServer({ crds: [DM_CRD], log: (l) => serverLog.push(l) });
    // the operator's one reconcile (of this object) lists, and gets a missing and a failing object
    const created = await api(
      env.url,
      'POST',
      '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers',
      dm('a'),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an operator at --log-level debug with a token kubeconfig (leader election, errors) never prints the token', async () => {
    const kc = join(dir, 'token.kubeconfig');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: ${env.url}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n`,
    );
    env.faults.failNext(1, {
      code: 500,
      pathPrefix: '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers/fails',
    });
    const r = await run(
      [
        '--kubeconfig',
        kc,
        '--log-level',
        'debug',
        '--leader-elect',
        '--leader-election-namespace',
        'default',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      true,
    );
    assert.match(r.out, /READY/, r.out.slice(-2000));
    assert.match(r.out, /"level":"debug"/, 'debug lines were logged');
    assert.match(r.out, /get failed/, 'errors were logged');
    assert.ok(
      !r.out.includes(TOKEN),
      `the token appears in the operator output:\n${r.out
        .split('\n')
        .filter((l) => l.includes(TOKEN))
        .join('\n')
        .slice(0, 2000)}`,
    );
    assert.ok(
      serverLog.some((l) => l.includes('/leases')),
      'the operator talked to the server (leader election)',
    );
    assert.ok(!serverLog.join('\n').includes(TOKEN), 'the token appears in the server request log');
  });

  it('a kubeconfig that does not parse: the error names the file, not the secrets', async () => {
    const kc = join(dir, 'broken.kubeconfig');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n    password: ${PASSWORD}\n   bad: [indent\n`,
    );
    const r = await run(
      ['--kubeconfig', kc, '--log-level', 'debug', '--metrics-bind-address', '0', '--health-probe-bind-address', '0'],
      false,
    );
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /broken\.kubeconfig/, r.out);
    assert.ok(
      !r.out.includes(TOKEN) && !r.out.includes(PASSWORD),
      `a secret appears in the error:\n${r.out.slice(0, 2000)}`,
    );
    assert.doesNotMatch(r.out, /\n\s+at .+:\d+:\d+/, 'no stack trace');
  });
});
