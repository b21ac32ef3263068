// What the server returns is typed so that a TypeScript user reads it without `?.` or `!`: the
// generated clientset's results, list items and watch events, listers' and informers' objects
// are Stored<Kind, Scope> (apiVersion and kind literals; metadata.name, uid, resourceVersion,
// creationTimestamp and, for a namespaced kind, namespace present). A program using the fixture's
// expected trees must compile under tsc --strict, and each `@ts-expect-error` must meet an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../golden/support.js';
import { tscStrict } from './tsc.js';

const dm = join(FIXTURES, 'databasemanager', 'expected');
const gc = join(FIXTURES, 'gatewayclass', 'expected');

const program = `
import type { Clientset } from ${JSON.stringify(join(dm, 'clientset', 'clientset.js'))};
import type { DatabaseManagerLister } from ${JSON.stringify(join(dm, 'listers', 'coolops.cn', 'v1alpha1', 'databasemanager.js'))};
import type { DatabaseManagerInformer } from ${JSON.stringify(join(dm, 'informers', 'coolops.cn', 'v1alpha1', 'databasemanager.js'))};
import type { DatabaseManager, DatabaseManagerList } from ${JSON.stringify(join(dm, 'apis', 'coolops.cn', 'v1alpha1', 'types.js'))};
import type { GatewayClassLister } from ${JSON.stringify(join(gc, 'listers', 'gateway.networking.k8s.io', 'v1', 'gatewayclass.js'))};
import type { GatewayClass } from ${JSON.stringify(join(gc, 'apis', 'gateway.networking.k8s.io', 'v1', 'types.js'))};

export async function read(cs: Clientset, lister: DatabaseManagerLister, informer: DatabaseManagerInformer, gcs: GatewayClassLister): Promise<string[]> {
  const c = cs.coolopsV1alpha1().databaseManagers("default");
  const got = await c.get("a");
  const created = await c.create({ metadata: { name: "b" }, spec: { replicas: 1 } });
  const updated = await c.updateStatus({ ...got, status: { availableReplicas: 1 } });
  const list = await c.list();
  const cached = lister.databaseManagers("default").get("a");
  const apiVersion: "coolops.cn/v1alpha1" = got.apiVersion;
  const kind: "DatabaseManager" = created.kind;
  const out: string[] = [
    got.metadata.name, got.metadata.namespace, got.metadata.uid, got.metadata.resourceVersion, got.metadata.creationTimestamp,
    created.metadata.uid, updated.metadata.resourceVersion, list.metadata.resourceVersion, cached.metadata.namespace, apiVersion, kind,
    cs.fieldManager,
  ];
  for (const item of list.items) out.push(item.metadata.name, item.metadata.namespace, item.kind);
  for (const o of lister.list()) out.push(o.metadata.uid);
  informer.informer().addEventHandler({ onAdd: (o) => void out.push(o.metadata.namespace) });
  const w = await c.watch();
  for await (const e of w) {
    if (e.type === "BOOKMARK") out.push(e.object.metadata.resourceVersion);
    else if (e.type === "ERROR") out.push(e.object.message ?? "");
    else out.push(e.object.metadata.name);
  }
  // cluster-scoped: name and uid present, no namespace promised
  const g = gcs.get("x");
  out.push(g.metadata.name, g.metadata.uid);
  // @ts-expect-error a cluster-scoped object's namespace is not promised
  const ns: string = g.metadata.namespace;
  // what you send is the plain kind: identity optional, apiVersion and kind the kind's literals
  const plain: DatabaseManager = { spec: { replicas: 2 } };
  // @ts-expect-error metadata of an object you build is optional
  out.push(plain.metadata.name);
  // @ts-expect-error apiVersion is the kind's own
  const wrongVersion: DatabaseManager = { apiVersion: "v1" };
  // @ts-expect-error a list's kind is the list kind
  const wrongList: DatabaseManagerList = { kind: "DatabaseManager", items: [] };
  // @ts-expect-error a bookmark is not an object of the kind
  for await (const e of w) if (e.type === "BOOKMARK") out.push(e.object.spec);
  const gcPlain: GatewayClass = { spec: { controllerName: "example.com/gw" } };
  return [...out, ns, String(wrongVersion), String(wrongList), String(gcPlain)];
}
`;

test('clientset, lister and informer objects are Stored: identity present, literals typed; plain objects stay optional', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-stored-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(dir, 'usage.ts'), program);
  const r = await tscStrict([dir], 'nodenext');
  assert.equal(r.output, '');
  assert.equal(r.status, 0);
});
