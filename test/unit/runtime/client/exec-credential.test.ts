import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { RestClient, ExecCredentialProvider, type ExecConfig } from '../../../../src/runtime/index.js';
import { json, startServer, status } from './server.js';
import { makePki, type Pki } from './tls.js';

let dir: string;
let plugin: string;
let pki: Pki;

// The plugin: counts its runs in $COUNTER, records its env in $INFO_OUT, prints an ExecCredential.
const PLUGIN = `
const fs = require('node:fs');
const n = (fs.existsSync(process.env.COUNTER) ? Number(fs.readFileSync(process.env.COUNTER, 'utf8')) : 0) + 1;
fs.writeFileSync(process.env.COUNTER, String(n));
if (process.env.INFO_OUT) fs.writeFileSync(process.env.INFO_OUT, JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), foo: process.env.FOO, args: process.argv.slice(2) }));
if (process.env.MODE === 'fail') { process.stderr.write('login required: run sso-login'); process.exit(3); }
if (process.env.MODE === 'garbage') { process.stdout.write('hello'); process.exit(0); }
const status = {};
if (process.env.MODE === 'cert') { status.clientCertificateData = fs.readFileSync(process.env.CERT, 'utf8'); status.clientKeyData = fs.readFileSync(process.env.KEY, 'utf8'); }
else status.token = 'tok-' + n;
if (process.env.EXP_MS) status.expirationTimestamp = new Date(Date.now() + Number(process.env.EXP_MS)).toISOString();
process.stdout.write(JSON.stringify({ kind: 'ExecCredential', apiVersion: process.env.API_VERSION || 'client.authentication.k8s.io/v1', status }));
`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'crdgen-exec-'));
  plugin = join(dir, 'plugin.cjs');
  writeFileSync(plugin, PLUGIN);
  pki = makePki();
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
  pki.cleanup();
});

let seq = 0;
function execConfig(env: Record<string, string> = {}): {
  exec: ExecConfig;
  counter: string;
  info: string;
  runs: () => number;
} {
  const counter = join(dir, `counter-${++seq}`);
  const info = join(dir, `info-${seq}`);
  return {
    exec: {
      command: process.execPath,
      args: [plugin, 'get-token'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: Object.entries({ COUNTER: counter, INFO_OUT: info, FOO: 'bar', ...env }).map(([name, value]) => ({
        name,
        value,
      })),
    },
    counter,
    info,
    runs: () => (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0),
  };
}

async function tokenServer(t: import('node:test').TestContext, accept: (auth: string | undefined) => boolean) {
  const srv = await startServer((req, res) =>
    accept(req.headers.authorization)
      ? json(res, 200, { auth: req.headers.authorization })
      : json(res, 401, status(401, 'Unauthorized')),
  );
  t.after(() => srv.close());
  return srv;
}

test('the credential is cached: concurrent and later requests share one plugin run', async (t) => {
  const srv = await tokenServer(t, () => true);
  const x = execConfig();
  const rest = new RestClient({
    server: srv.url,
    qps: 0,
    auth: { exec: { ...x.exec, provideClusterInfo: true, clusterConfig: { region: 'eu' } } },
  });
  t.after(() => rest.close());
  const results = await Promise.all(Array.from({ length: 5 }, () => rest.get<{ auth: string }>('/api')));
  assert.deepEqual(new Set(results.map((r) => r.auth)), new Set(['Bearer tok-1']));
  assert.equal((await rest.get<{ auth: string }>('/api')).auth, 'Bearer tok-1');
  assert.equal(x.runs(), 1);
  const seen = JSON.parse(readFileSync(x.info, 'utf8'));
  assert.deepEqual(seen.info, {
    kind: 'ExecCredential',
    apiVersion: 'client.authentication.k8s.io/v1',
    spec: { interactive: false, cluster: { server: srv.url, config: { region: 'eu' } } },
  });
  assert.equal(seen.foo, 'bar');
  assert.deepEqual(seen.args, ['get-token']);
});

test('a 401 re-runs the plugin once and retries with the new token', async (t) => {
  const srv = await tokenServer(t, (a) => a !== 'Bearer tok-1');
  const x = execConfig();
  const rest = new RestClient({ server: srv.url, qps: 0, auth: { exec: x.exec } });
  t.after(() => rest.close());
  assert.equal((await rest.get<{ auth: string }>('/api')).auth, 'Bearer tok-2');
  assert.equal(x.runs(), 2);
  assert.deepEqual(
    srv.requests.map((r) => r.headers.authorization),
    ['Bearer tok-1', 'Bearer tok-2'],
  );
  // A server that refuses every token: one refresh, then the 401 surfaces (no loop).
  const deny = await tokenServer(t, () => false);
  const y = execConfig();
  const rest2 = new RestClient({ server: deny.url, qps: 0, auth: { exec: y.exec } });
  t.after(() => rest2.close());
  await assert.rejects(rest2.get('/api'), (e: unknown) => (e as { code?: number }).code === 401);
  assert.equal(deny.requests.length, 2);
  assert.equal(y.runs(), 2);
});

test('an expired credential (expirationTimestamp) is fetched again', async (t) => {
  const srv = await tokenServer(t, () => true);
  const x = execConfig({ EXP_MS: '150' });
  const rest = new RestClient({ server: srv.url, qps: 0, auth: { exec: x.exec } });
  t.after(() => rest.close());
  assert.equal((await rest.get<{ auth: string }>('/api')).auth, 'Bearer tok-1');
  await new Promise((r) => setTimeout(r, 250));
  assert.equal((await rest.get<{ auth: string }>('/api')).auth, 'Bearer tok-2');
  assert.equal(x.runs(), 2);
});

test('an exec plugin may return a client certificate instead of a token', async (t) => {
  const srv = await startServer(
    (_req, res) => {
      const peer = (res.req.socket as TLSSocket).getPeerCertificate();
      json(res, 200, { cn: peer.subject?.CN ?? null });
    },
    https.createServer({
      cert: pki.serverCert,
      key: pki.serverKey,
      ca: pki.ca,
      requestCert: true,
      rejectUnauthorized: true,
    }),
  );
  t.after(() => srv.close());
  const x = execConfig({ MODE: 'cert', CERT: pki.clientCertFile, KEY: pki.clientKeyFile });
  const rest = new RestClient({ server: srv.url, qps: 0, tls: { caData: pki.ca }, auth: { exec: x.exec } });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api'), { cn: 'alice' });
});

test('plugin failures are clear errors', async (t) => {
  const srv = await tokenServer(t, () => true);
  const cases: Array<[ExecConfig, RegExp]> = [
    [execConfig({ MODE: 'fail' }).exec, /exec plugin ".*" failed: .*login required: run sso-login/],
    [execConfig({ MODE: 'garbage' }).exec, /did not print an ExecCredential as JSON/],
    [
      execConfig({ API_VERSION: 'client.authentication.k8s.io/v1beta1' }).exec,
      /returned apiVersion "client.authentication.k8s.io\/v1beta1", expected "client.authentication.k8s.io\/v1"/,
    ],
    [
      {
        command: join(dir, 'no-such-plugin'),
        apiVersion: 'client.authentication.k8s.io/v1',
        installHint: 'Install it with: brew install no-such-plugin',
      },
      /failed: not found\nInstall it with: brew install no-such-plugin/,
    ],
  ];
  for (const [exec, re] of cases) {
    const rest = new RestClient({ server: srv.url, qps: 0, auth: { exec } });
    await assert.rejects(rest.get('/api'), re);
    rest.close();
  }
  assert.equal(srv.requests.length, 0);
  assert.throws(
    () =>
      new RestClient({
        server: srv.url,
        auth: { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' } },
      }),
    /unsupported apiVersion/,
  );
});

test('ExecCredentialProvider parses status fields strictly', async () => {
  const run = (out: unknown) =>
    new ExecCredentialProvider({ command: 'p', apiVersion: 'client.authentication.k8s.io/v1' }, undefined, async () =>
      JSON.stringify(out),
    ).get();
  const base = { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1' };
  assert.deepEqual(await run({ ...base, status: { token: 't', expirationTimestamp: '2030-01-01T00:00:00Z' } }), {
    token: 't',
    expiresAt: Date.parse('2030-01-01T00:00:00Z'),
  });
  await assert.rejects(run({ ...base, status: {} }), /neither a token nor a client certificate/);
  await assert.rejects(
    run({ ...base, status: { clientCertificateData: 'c' } }),
    /only one of clientCertificateData and clientKeyData/,
  );
  await assert.rejects(
    run({ ...base, status: { token: 't', expirationTimestamp: 'tomorrow' } }),
    /invalid expirationTimestamp/,
  );
  await assert.rejects(run({ ...base }), /without status/);
  await assert.rejects(run({ kind: 'Other' }), /not an ExecCredential/);
});

test('interactiveMode Always cannot be served and says so', async () => {
  const p = new ExecCredentialProvider(
    { command: 'login', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' },
    undefined,
    async () => {
      throw new Error('must not run');
    },
  );
  await assert.rejects(p.get(), /requires interactive mode \(interactiveMode: Always\)/);
});

test('one caller aborting does not fail the others sharing the plugin run', async () => {
  let runs = 0;
  let release!: (out: string) => void;
  const p = new ExecCredentialProvider(
    { command: 'p', apiVersion: 'client.authentication.k8s.io/v1' },
    undefined,
    () => {
      runs++;
      return new Promise<string>((r) => {
        release = r;
      });
    },
  );
  const ac = new AbortController();
  const first = p.get(ac.signal);
  const second = p.get();
  ac.abort(new Error('first caller gave up'));
  await assert.rejects(first, /first caller gave up/);
  release(
    JSON.stringify({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      status: { token: 'shared' },
    }),
  );
  assert.equal((await second).token, 'shared');
  assert.equal((await p.get()).token, 'shared'); // cached
  assert.equal(runs, 1);
});

test('provideClusterInfo passes the CA even when the kubeconfig names it as a file', async (t) => {
  const srv = await tokenServer(t, () => true);
  const x = execConfig();
  const rest = new RestClient({
    server: srv.url,
    qps: 0,
    tls: { caFile: pki.caFile, serverName: 'api.local' },
    auth: { exec: { ...x.exec, provideClusterInfo: true } },
  });
  t.after(() => rest.close());
  await rest.get('/api');
  const cluster = JSON.parse(readFileSync(x.info, 'utf8')).info.spec.cluster;
  assert.equal(Buffer.from(cluster['certificate-authority-data'], 'base64').toString(), pki.ca);
  assert.equal(cluster['tls-server-name'], 'api.local');
  assert.throws(
    () =>
      new RestClient({
        server: srv.url,
        tls: { caFile: join(dir, 'missing-ca') },
        auth: { exec: { ...x.exec, provideClusterInfo: true } },
      }),
    /cannot read certificate-authority file .*missing-ca/,
  );
});
