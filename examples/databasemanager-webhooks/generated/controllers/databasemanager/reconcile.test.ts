// The test of the DatabaseManager controller's reconcile.ts. crdgen wrote this file once and never
// overwrites it: it is yours, like reconcile.ts. It runs the controller against crdgen/testing's
// API server with the kind's CRD, creates a DatabaseManager and checks what `reconcile` did with it;
// `npm test` runs it (node --test). reconcile.ts is still the stub, so the DatabaseManager is seen and
// nothing is written: once `reconcile` does its work, assert that work here instead.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { newManager, restBackend } from "crdgen/runtime";
import {
  startControlPlane,
  startTestApiServer,
  type ApiServerHandle,
} from "crdgen/testing";
import { DatabaseManagerResource } from "../../apis/coolops.cn/v1/register.js";
import type { DatabaseManager } from "../../apis/coolops.cn/v1/types.js";
import {
  controllerName,
  setupDatabaseManagerController,
} from "./controller.js";
import { reconcile } from "./reconcile.js";

/**
 * true: the real control plane (kube-apiserver and etcd from $KUBEBUILDER_ASSETS, which
 * `npx crdgen testenv --real` builds) instead of crdgen/testing's in-process server.
 */
const REAL_CONTROL_PLANE = false;

/** Where crdgen wrote the kind's CRD: beside this file, and from the project's root. */
const CRD_BESIDE = "./config/crd/databasemanagers.coolops.cn.yaml";
const CRD_FROM_ROOT = "generated/controllers/databasemanager/config/crd/databasemanagers.coolops.cn.yaml";

/**
 * The kind's CRD: beside this file when the test runs from the sources (tsx), else at
 * CRD_FROM_ROOT under the project's root (the nearest folder with a package.json), for the
 * compiled test in dist/.
 */
function crdFile(): string {
  const beside = fileURLToPath(new URL(CRD_BESIDE, import.meta.url));
  if (existsSync(beside)) return beside;
  let root = dirname(beside);
  while (!existsSync(join(root, "package.json")) && dirname(root) !== root)
    root = dirname(root);
  return join(root, CRD_FROM_ROOT);
}

/** Resolves with what `probe` gives once it gives something; fails after `timeoutMs`. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let env: ApiServerHandle;
before(async () => {
  const crds = [crdFile()];
  env = REAL_CONTROL_PLANE
    ? await startControlPlane({ crds })
    : await startTestApiServer({ crds });
});
after(() => env?.stop());

test("a DatabaseManager is seen by the controller, and its status is left alone", async () => {
  const seen: string[] = [];
  const manager = newManager({
    client: env.clientConfig,
    name: controllerName,
  });
  // a name is recorded once its reconcile has finished: what it wrote is there to read
  const recordSeen: typeof reconcile = async (obj, context) => {
    try {
      return await reconcile(obj, context);
    } finally {
      seen.push(obj.metadata?.name ?? "");
    }
  };
  setupDatabaseManagerController(manager, {}, recordSeen);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  try {
    const api = restBackend(env.clientConfig);
    const client = api.resource<DatabaseManager>(
      DatabaseManagerResource,
      "default",
    );
    const created = await client.create({
      apiVersion: "coolops.cn/v1",
      kind: "DatabaseManager",
      metadata: {
        name: "sample",
        namespace: "default",
      },
    });
    await until("sample seen", () => seen.includes("sample") || undefined);
    const now = await client.get("sample");
    assert.deepEqual(now.status, created.status, "the status is left alone");
    const written = now.metadata?.resourceVersion;
    assert.equal(written, created.metadata?.resourceVersion, "nothing written");
  } finally {
    stop.abort();
    await running;
  }
});
