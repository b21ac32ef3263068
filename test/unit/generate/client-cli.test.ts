// The client generators' command-line options on `crdgen generate` (in-process CLI).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../cli/cli-support.js';
import { interfaceMethods } from './client-helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-client-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const TYPED = 'clientset/typed/coolops.cn/v1alpha1/databasemanager.ts';

test('--readonly, --verbs, --skip-verbs, --skip-status and --plural-exceptions shape the generated client', async () => {
  const ro = join(tmp, 'ro');
  const r = await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', ro, '--readonly', 'DatabaseManager']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(interfaceMethods(readFileSync(join(ro, TYPED), 'utf8'), 'DatabaseManagerInterface'), [
    'get',
    'list',
    'watch',
  ]);
  assert.ok(!existsSync(join(ro, 'applyconfigurations')), 'no apply verb, no apply configuration');
  const mix = join(tmp, 'mix');
  const r2 = await cli([
    'generate',
    'fixtures/databasemanager/crd.yaml',
    '--out',
    mix,
    '--skip-verbs',
    'DatabaseManager=delete,deleteCollection',
    '--skip-status',
    'DatabaseManager',
    '--plural-exceptions',
    'DatabaseManager:Databases',
  ]);
  assert.equal(r2.code, 0, r2.stderr);
  const text = readFileSync(join(mix, TYPED), 'utf8');
  assert.deepEqual(interfaceMethods(text, 'DatabaseManagerInterface'), [
    'create',
    'update',
    'get',
    'list',
    'watch',
    'patch',
    'apply',
  ]);
  assert.match(text, /databases\(namespace: string\): DatabaseManagerInterface;/);
  const only = join(tmp, 'only');
  assert.equal(
    (
      await cli([
        'generate',
        'fixtures/databasemanager/crd.yaml',
        '--out',
        only,
        '--verbs',
        'DatabaseManager=get',
        '--verbs',
        'DatabaseManager=create',
      ])
    ).code,
    0,
  );
  assert.deepEqual(interfaceMethods(readFileSync(join(only, TYPED), 'utf8'), 'DatabaseManagerInterface'), [
    'create',
    'get',
  ]);
});

test('options naming a kind or verb that does not exist are usage errors (exit 2, nothing written)', async () => {
  for (const args of [
    ['--verbs', 'Nope=get'],
    ['--verbs', 'DatabaseManager=fly'],
    ['--readonly', 'Nope'],
    ['--plural-exceptions', 'Nope:Nopes'],
    ['--plural-exceptions', 'bad'],
    ['--verbs', 'DatabaseManager'],
  ]) {
    const out = join(tmp, `bad${args.join('')}`.replace(/[^a-z0-9]/gi, '_'));
    const r = await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', out, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /crdgen: /);
    assert.ok(!/\n\s+at /.test(r.stderr), 'no stack trace');
    assert.ok(!existsSync(out), 'nothing written');
  }
});

test('TypeScript input: +genclient markers (nonNamespaced, onlyVerbs, readonly, noStatus) shape the clients', async () => {
  const dir = mkdtempSync(join(tmp, 'ts-'));
  writeFileSync(
    join(dir, 'types.ts'),
    `// +groupName=markers.example.com
// +versionName=v1
import type { ObjectMeta } from 'crdgen/types';

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch,create
// +kubebuilder:subresource:status
export interface Cluster {
  apiVersion: 'markers.example.com/v1';
  kind: 'Cluster';
  metadata: ObjectMeta;
  spec?: { size?: number };
  status?: { ready?: boolean };
}

// +genclient
// +genclient:readonly
export interface Viewer {
  apiVersion: 'markers.example.com/v1';
  kind: 'Viewer';
  metadata: ObjectMeta;
  spec?: { who?: string };
}

// +genclient
// +genclient:noStatus
// +kubebuilder:subresource:status
export interface Quiet {
  apiVersion: 'markers.example.com/v1';
  kind: 'Quiet';
  metadata: ObjectMeta;
  spec?: { x?: string };
  status?: { y?: string };
}
`,
  );
  const out = join(tmp, 'ts-out');
  const r = await cli(['generate', join(dir, 'types.ts'), '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  const typed = (k: string) => readFileSync(join(out, `clientset/typed/markers.example.com/v1/${k}.ts`), 'utf8');
  assert.deepEqual(interfaceMethods(typed('cluster'), 'ClusterInterface'), ['create', 'get', 'list', 'watch']);
  assert.match(typed('cluster'), /clusters\(\): ClusterInterface;/, 'nonNamespaced: no namespace argument');
  assert.deepEqual(interfaceMethods(typed('viewer'), 'ViewerInterface'), ['get', 'list', 'watch']);
  assert.match(typed('viewer'), /viewers\(namespace: string\): ViewerInterface;/);
  assert.ok(!interfaceMethods(typed('quiet'), 'QuietInterface').some((m) => m.endsWith('Status')));
  assert.match(
    readFileSync(join(out, 'listers/markers.example.com/v1/cluster.ts'), 'utf8'),
    /get\(name: string\): Stored<Cluster, "Cluster">;/,
  );
});

test('TypeScript input: irregular plurals and --plural-exceptions set the resource plural and the names', async () => {
  const dir = mkdtempSync(join(tmp, 'ts-plural-'));
  const kind = (k: string, extra = '') => `
// +genclient${extra}
export interface ${k} {
  apiVersion: 'plural.example.com/v1';
  kind: '${k}';
  metadata: ObjectMeta;
  spec?: { a?: string };
}
`;
  writeFileSync(
    join(dir, 'types.ts'),
    `// +groupName=plural.example.com
// +versionName=v1
import type { ObjectMeta } from 'crdgen/types';
${kind('Person')}${kind('Gadget')}${kind('Index', '\n// +kubebuilder:resource:path=indexen')}`,
  );
  const out = join(tmp, 'ts-plural-out');
  const r = await cli(['generate', join(dir, 'types.ts'), '--out', out, '--plural-exceptions', 'Gadget:Gizmos']);
  assert.equal(r.code, 0, r.stderr);
  const register = readFileSync(join(out, 'apis/plural.example.com/v1/register.ts'), 'utf8');
  assert.match(
    register,
    /PersonGVR = Object\.freeze\(\{\n {2}group: GroupName,\n {2}version: Version,\n {2}resource: "people",\n\}/,
  );
  assert.match(
    register,
    /GadgetGVR = Object\.freeze\(\{\n {2}group: GroupName,\n {2}version: Version,\n {2}resource: "gizmos",\n\}/,
  );
  assert.match(
    register,
    /IndexGVR = Object\.freeze\(\{\n {2}group: GroupName,\n {2}version: Version,\n {2}resource: "indexen",\n\}/,
    'an explicit path stays',
  );
  const client = readFileSync(join(out, 'clientset/typed/plural.example.com/v1/client.ts'), 'utf8');
  assert.match(client, /people\(namespace: string\): PersonInterface/);
  assert.match(client, /gizmos\(namespace: string\): GadgetInterface/);
  assert.match(client, /indexen\(namespace: string\): IndexInterface/);
});
