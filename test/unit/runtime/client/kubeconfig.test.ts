import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import * as https from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  loadKubeconfig,
  readKubeconfig,
  restConfigFromKubeconfig,
  KubeconfigError,
  inClusterConfig,
  isInCluster,
  loadConfig,
  RestClient,
} from '../../../../src/runtime/index.js';
import { json, startServer, type TestServer } from './server.js';
import { makePki, type Pki } from './tls.js';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const execFileP = promisify(execFile);
let pki: Pki;
let dir: string;

before(() => {
  pki = makePki();
  dir = mkdtempSync(join(tmpdir(), 'crdgen-kubeconfig-'));
});
after(() => {
  pki.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `kubectl config <args> --kubeconfig <file>`; fails (not skips) without kubectl.
 * Asynchronous on purpose: some kubectl builds (gcloud's version dispatcher) ask the
 * context's server for /version, and our in-process test servers must be able to answer.
 */
async function kubectl(file: string, ...args: string[]): Promise<void> {
  await execFileP(KUBECTL, ['config', ...args, '--kubeconfig', file], { cwd: dirname(file) });
}

async function tlsServer(t: import('node:test').TestContext, opts: https.ServerOptions = {}): Promise<TestServer> {
  const srv = await startServer(
    (req, res) => {
      // kubectl's version dispatcher (gcloud's kubectl) asks /version of the context's server.
      if (req.path === '/version') return json(res, 200, { major: '1', minor: '32', gitVersion: 'v1.32.0' });
      const sock = res.req.socket as TLSSocket;
      const peer = sock.getPeerCertificate?.();
      json(res, 200, {
        path: req.path,
        auth: req.headers.authorization ?? null,
        cn: peer && 'subject' in peer && peer.subject ? peer.subject.CN : null,
        imp: req.headers['impersonate-group'] ?? null,
      });
    },
    https.createServer({ cert: pki.serverCert, key: pki.serverKey, ...opts }),
  );
  t.after(() => srv.close());
  return srv;
}

test('a kubeconfig written by kubectl (embedded CA, token, namespace) reaches an HTTPS server', async (t) => {
  const srv = await tlsServer(t);
  const file = join(dir, 'embedded');
  await kubectl(
    file,
    'set-cluster',
    'dev',
    `--server=${srv.url}`,
    `--certificate-authority=${pki.caFile}`,
    '--embed-certs=true',
  );
  await kubectl(file, 'set-credentials', 'alice', '--token=abc123');
  await kubectl(file, 'set-context', 'dev', '--cluster=dev', '--user=alice', '--namespace=team-a');
  await kubectl(file, 'use-context', 'dev');
  const cfg = await loadKubeconfig({ path: file });
  assert.equal(cfg.server, srv.url);
  assert.equal(cfg.namespace, 'team-a');
  assert.equal(cfg.auth?.bearerToken, 'abc123');
  assert.equal(Buffer.from(cfg.tls?.caData ?? '').toString(), pki.ca);
  const rest = new RestClient({ ...cfg, qps: 0 });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api'), { path: '/api', auth: 'Bearer abc123', cn: null, imp: null });
});

test('relative certificate paths resolve against the kubeconfig folder; client certificates authenticate', async (t) => {
  const srv = await tlsServer(t, { ca: pki.ca, requestCert: true, rejectUnauthorized: true });
  const sub = join(dir, 'rel');
  mkdirSync(join(sub, 'pki'), { recursive: true });
  copyFileSync(pki.caFile, join(sub, 'pki', 'ca.crt'));
  copyFileSync(pki.clientCertFile, join(sub, 'pki', 'client.crt'));
  copyFileSync(pki.clientKeyFile, join(sub, 'pki', 'client.key'));
  const file = join(sub, 'config');
  await kubectl(file, 'set-cluster', 'c', `--server=${srv.url}`, '--certificate-authority=pki/ca.crt');
  await kubectl(file, 'set-credentials', 'u', '--client-certificate=pki/client.crt', '--client-key=pki/client.key');
  await kubectl(file, 'set-context', 'ctx', '--cluster=c', '--user=u');
  await kubectl(file, 'use-context', 'ctx');
  const cfg = await loadKubeconfig({ path: file });
  assert.equal(cfg.tls?.caFile, join(sub, 'pki', 'ca.crt'));
  assert.equal(cfg.tls?.certFile, join(sub, 'pki', 'client.crt'));
  assert.equal(cfg.namespace, 'default');
  const rest = new RestClient({ ...cfg, qps: 0 });
  t.after(() => rest.close());
  const r = await rest.get<{ cn: string }>('/api');
  assert.equal(r.cn, 'alice');
  // Without the client certificate the server refuses the handshake.
  const anon = new RestClient({ server: srv.url, tls: { caFile: cfg.tls?.caFile ?? '' }, qps: 0 });
  t.after(() => anon.close());
  await assert.rejects(anon.get('/api'));
});

test('impersonation settings become Impersonate-* headers (several groups repeat the header)', async (t) => {
  const srv = await startServer((req, res) =>
    json(res, 200, {
      user: req.headers['impersonate-user'],
      groups: req.headers['impersonate-group'],
      extra: req.headers['impersonate-extra-scopes'],
    }),
  );
  t.after(() => srv.close());
  const file = join(dir, 'impersonate.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: x',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: ${srv.url}`,
      'users:',
      '- name: u',
      '  user:',
      '    token: t',
      '    as: jane',
      '    as-groups: [devs, ops]',
      '    as-user-extra:',
      '      scopes: [read]',
      'contexts:',
      '- name: x',
      '  context: {cluster: c, user: u}',
      '',
    ].join('\n'),
  );
  const rest = new RestClient({ ...(await loadKubeconfig({ path: file })), qps: 0 });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api'), { user: 'jane', groups: 'devs, ops', extra: 'read' });
});

test('TLS verification: wrong CA fails, insecure-skip-tls-verify passes, tls-server-name picks the name to verify', async (t) => {
  const srv = await tlsServer(t);
  const wrong = new RestClient({ server: srv.url, tls: { caData: pki.otherCa }, qps: 0 });
  const insecure = new RestClient({ server: srv.url, tls: { insecureSkipTlsVerify: true }, qps: 0 });
  t.after(() => {
    wrong.close();
    insecure.close();
  });
  await assert.rejects(wrong.get('/api'), /certificate/i);
  assert.equal((await insecure.get<{ path: string }>('/api')).path, '/api');

  const named = await startServer(
    (_req, res) => json(res, 200, { ok: true }),
    https.createServer({ cert: pki.namedCert, key: pki.namedKey }),
  );
  t.after(() => named.close());
  const file = join(dir, 'named');
  await kubectl(
    file,
    'set-cluster',
    'n',
    `--server=${named.url}`,
    `--certificate-authority=${pki.caFile}`,
    '--tls-server-name=api.local',
  );
  await kubectl(file, 'set-context', 'n', '--cluster=n');
  await kubectl(file, 'use-context', 'n');
  const cfg = await loadKubeconfig({ path: file });
  assert.equal(cfg.tls?.serverName, 'api.local');
  const ok = new RestClient({ ...cfg, qps: 0 });
  const mismatch = new RestClient({ server: named.url, tls: { caFile: pki.caFile }, qps: 0 });
  t.after(() => {
    ok.close();
    mismatch.close();
  });
  assert.deepEqual(await ok.get('/api'), { ok: true });
  await assert.rejects(mismatch.get('/api'), /IP: 127\.0\.0\.1 is not in the cert's list|altnames/i);
});

test('KUBECONFIG merges files: the first file to define a name or current-context wins; missing files are skipped', async () => {
  const a = join(dir, 'merge-a');
  const b = join(dir, 'merge-b');
  await Promise.all([
    (async () => {
      await kubectl(a, 'set-cluster', 'shared', '--server=https://127.0.0.1:1/from-a');
      await kubectl(a, 'set-credentials', 'u', '--token=token-a');
      await kubectl(a, 'set-context', 'ctx-a', '--cluster=shared', '--user=u');
    })(),
    (async () => {
      await kubectl(b, 'set-cluster', 'shared', '--server=https://127.0.0.1:1/from-b');
      await kubectl(b, 'set-cluster', 'only-b', '--server=https://127.0.0.1:1/only-b');
      await kubectl(b, 'set-credentials', 'u', '--token=token-b');
      await kubectl(b, 'set-context', 'ctx-b', '--cluster=only-b', '--user=u', '--namespace=nb');
      await kubectl(b, 'use-context', 'ctx-b');
    })(),
  ]);
  const env = { KUBECONFIG: [join(dir, 'does-not-exist'), a, b].join(delimiter), HOME: dir };
  const kc = await readKubeconfig({ env });
  assert.deepEqual(kc.files, [a, b]);
  assert.equal(kc.currentContext, 'ctx-b'); // a sets none, so b's applies
  const cur = restConfigFromKubeconfig(kc);
  assert.equal(cur.server, 'https://127.0.0.1:1/only-b');
  assert.equal(cur.auth?.bearerToken, 'token-a'); // user "u": a's definition wins
  assert.equal(cur.namespace, 'nb');
  const ctxA = await loadKubeconfig({ env, context: 'ctx-a', namespace: 'override' });
  assert.equal(ctxA.server, 'https://127.0.0.1:1/from-a'); // cluster "shared": a wins
  assert.equal(ctxA.namespace, 'override');
  await kubectl(a, 'use-context', 'ctx-a');
  assert.equal((await loadKubeconfig({ env })).server, 'https://127.0.0.1:1/from-a');
});

test('clear errors for missing files, contexts, clusters, users and bad YAML', async () => {
  await assert.rejects(
    loadKubeconfig({ path: join(dir, 'nope') }),
    (e: unknown) => e instanceof KubeconfigError && /cannot read kubeconfig .*nope: no such file/.test(e.message),
  );
  await assert.rejects(loadKubeconfig({ env: { KUBECONFIG: join(dir, 'nope1') } }), /no kubeconfig found/);
  const f = join(dir, 'errs');
  await kubectl(f, 'set-cluster', 'c', '--server=https://127.0.0.1:1/c');
  await kubectl(f, 'set-context', 'no-cluster', '--cluster=ghost');
  await kubectl(f, 'set-context', 'no-user', '--cluster=c', '--user=ghost');
  await assert.rejects(loadKubeconfig({ path: f }), /no current-context set/);
  await assert.rejects(loadKubeconfig({ path: f, context: 'x' }), /context "x" does not exist/);
  await assert.rejects(
    loadKubeconfig({ path: f, context: 'no-cluster' }),
    /cluster "ghost" of context "no-cluster" does not exist/,
  );
  await assert.rejects(
    loadKubeconfig({ path: f, context: 'no-user' }),
    /user "ghost" of context "no-user" does not exist/,
  );
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'clusters: [\n  - name: x\n');
  await assert.rejects(loadKubeconfig({ path: bad }), /is not valid YAML/);
  writeFileSync(bad, 'clusters: 3\n');
  await assert.rejects(loadKubeconfig({ path: bad }), /"clusters" must be a list/);
  writeFileSync(bad, 'clusters:\n- cluster: {server: https://x}\n');
  await assert.rejects(loadKubeconfig({ path: bad }), /clusters\[0\] needs a name/);
  const insecure = join(dir, 'insecure-ca');
  await kubectl(
    insecure,
    'set-cluster',
    'c',
    '--server=https://127.0.0.1:1/c',
    `--certificate-authority=${pki.caFile}`,
    '--embed-certs=true',
  );
  await kubectl(insecure, 'set', 'clusters.c.insecure-skip-tls-verify', 'true');
  await kubectl(insecure, 'set-context', 'c', '--cluster=c');
  await assert.rejects(loadKubeconfig({ path: insecure, context: 'c' }), /insecure-skip-tls-verify is not allowed/);
});

test('basic auth, token file, proxy-url, disable-compression and exec settings are read as kubectl writes them', async () => {
  const f = join(dir, 'misc');
  await kubectl(f, 'set-cluster', 'c', '--server=https://127.0.0.1:1/c', '--insecure-skip-tls-verify=true');
  await kubectl(f, 'set', 'clusters.c.proxy-url', 'http://proxy.local:3128');
  await kubectl(f, 'set', 'clusters.c.disable-compression', 'true');
  await kubectl(f, 'set-credentials', 'basic', '--username=bob', '--password=pw');
  await kubectl(f, 'set', 'users.tf.tokenFile', 'tokens/t');
  await kubectl(
    f,
    'set-credentials',
    'ex',
    '--exec-command=./bin/plugin',
    '--exec-api-version=client.authentication.k8s.io/v1',
    '--exec-arg=get-token',
    '--exec-env=FOO=bar',
    '--exec-interactive-mode=Never',
    '--exec-provide-cluster-info=true',
  );
  await kubectl(
    f,
    'set-credentials',
    'ex-path',
    '--exec-command=aws',
    '--exec-api-version=client.authentication.k8s.io/v1beta1',
  );
  const kc = await readKubeconfig({ path: f });
  for (const u of ['basic', 'tf', 'ex', 'ex-path']) kc.contexts.set(u, { context: { cluster: 'c', user: u }, file: f });
  const load = (context: string) => Promise.resolve(restConfigFromKubeconfig(kc, { context }));
  const basic = await load('basic');
  assert.deepEqual(basic.auth, { username: 'bob', password: 'pw' });
  assert.equal(basic.proxyUrl, 'http://proxy.local:3128');
  assert.equal(basic.disableCompression, true);
  assert.equal(basic.tls?.insecureSkipTlsVerify, true);
  assert.equal((await load('tf')).auth?.bearerTokenFile, join(dir, 'tokens', 't'));
  const ex = await load('ex');
  assert.deepEqual(ex.auth?.exec, {
    command: join(dir, 'bin', 'plugin'),
    apiVersion: 'client.authentication.k8s.io/v1',
    args: ['get-token'],
    env: [{ name: 'FOO', value: 'bar' }],
    provideClusterInfo: true,
    interactiveMode: 'Never',
  });
  assert.equal((await load('ex-path')).auth?.exec?.command, 'aws'); // PATH lookup, not resolved
});

test('in-cluster config: service env, mounted token file, CA and namespace', async (t) => {
  const sa = join(dir, 'sa');
  mkdirSync(sa, { recursive: true });
  writeFileSync(join(sa, 'token'), 'sa-token-1\n');
  copyFileSync(pki.caFile, join(sa, 'ca.crt'));
  writeFileSync(join(sa, 'namespace'), 'operators\n');
  const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  assert.equal(isInCluster(env), true);
  assert.equal(isInCluster({}), false);
  const cfg = await inClusterConfig({ env, serviceAccountDir: sa });
  assert.equal(cfg.server, 'https://127.0.0.1:443');
  assert.equal(cfg.namespace, 'operators');
  assert.equal(cfg.auth?.bearerTokenFile, join(sa, 'token'));
  assert.equal(Buffer.from(cfg.tls?.caData ?? '').toString(), pki.ca);
  assert.equal(
    (
      await inClusterConfig({
        env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
        serviceAccountDir: sa,
      })
    ).server,
    'https://[fd00::1]:6443',
  );
  await assert.rejects(
    inClusterConfig({ env: {}, serviceAccountDir: sa }),
    /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined/,
  );
  // CRDGEN_SERVICE_ACCOUNT_DIR moves the mount point; an explicit serviceAccountDir wins over it
  const moved = await inClusterConfig({ env: { ...env, CRDGEN_SERVICE_ACCOUNT_DIR: sa } });
  assert.equal(moved.auth?.bearerTokenFile, join(sa, 'token'));
  assert.equal(moved.namespace, 'operators');
  await assert.rejects(
    inClusterConfig({ env: { ...env, CRDGEN_SERVICE_ACCOUNT_DIR: join(dir, 'nosa') } }),
    new RegExp(`cannot read the service account token ${join(dir, 'nosa', 'token')}`),
  );
  assert.equal(
    (await inClusterConfig({ env: { ...env, CRDGEN_SERVICE_ACCOUNT_DIR: join(dir, 'nosa') }, serviceAccountDir: sa }))
      .namespace,
    'operators',
  );
  // loadConfig reads it too (the operator's path)
  assert.equal(
    (await loadConfig({ env: { ...env, CRDGEN_SERVICE_ACCOUNT_DIR: sa } })).auth?.bearerTokenFile,
    join(sa, 'token'),
  );
  await assert.rejects(
    inClusterConfig({ env, serviceAccountDir: join(dir, 'nosa') }),
    /cannot read the service account token/,
  );

  // End to end against an HTTPS server: the token comes from the file.
  const srv = await tlsServer(t);
  const port = new URL(srv.url).port;
  const live = await inClusterConfig({
    env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port },
    serviceAccountDir: sa,
  });
  const rest = new RestClient({ ...live, qps: 0 });
  t.after(() => rest.close());
  assert.equal((await rest.get<{ auth: string }>('/api')).auth, 'Bearer sa-token-1');
});

test('loadConfig order: explicit path, KUBECONFIG, in-cluster, ~/.kube/config', async () => {
  const home = join(dir, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  const homeCfg = join(home, '.kube', 'config');
  await kubectl(homeCfg, 'set-cluster', 'h', '--server=https://127.0.0.1:1/home');
  await kubectl(homeCfg, 'set-context', 'h', '--cluster=h');
  await kubectl(homeCfg, 'use-context', 'h');
  const envCfg = join(dir, 'env-cfg');
  await kubectl(envCfg, 'set-cluster', 'e', '--server=https://127.0.0.1:1/env');
  await kubectl(envCfg, 'set-context', 'e', '--cluster=e');
  await kubectl(envCfg, 'use-context', 'e');
  const sa = join(dir, 'sa');
  const inCluster = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  assert.equal((await loadConfig({ env: { HOME: home } })).server, 'https://127.0.0.1:1/home');
  assert.equal(
    (await loadConfig({ env: { HOME: home, ...inCluster }, serviceAccountDir: sa })).server,
    'https://10.0.0.1:443',
  );
  assert.equal(
    (await loadConfig({ env: { HOME: home, KUBECONFIG: envCfg, ...inCluster } })).server,
    'https://127.0.0.1:1/env',
  );
  assert.equal((await loadConfig({ path: homeCfg, env: { KUBECONFIG: envCfg } })).server, 'https://127.0.0.1:1/home');
  const o = await loadConfig({ env: { HOME: home }, overrides: { qps: 50, burst: 100, userAgent: 'op/2' } });
  assert.deepEqual([o.qps, o.burst, o.userAgent], [50, 100, 'op/2']);
  await assert.rejects(loadConfig({ env: { HOME: join(dir, 'empty-home') } }), /no Kubernetes configuration found/);
});
