// The test of the DatabaseManager operator's reconcile.ts (crdgen's databasemanager starter). crdgen
// wrote this file once and never overwrites it: it is yours, like reconcile.ts. It runs the
// controller against crdgen/testing's API server with the kind's CRD (a stand-in deployment
// controller makes each Deployment's replicas available), creates a DatabaseManager and checks what
// `reconcile` does with it. `npm test` runs it (node --test).
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DeploymentResource, ServiceResource, newManager, restBackend, } from "/tmp/crdgen-bench-pkg-vbOfq4/dist/runtime/index.js";
import { startControlPlane, startTestApiServer, } from "/tmp/crdgen-bench-pkg-vbOfq4/dist/testing/index.js";
import { DatabaseManagerResource } from "../../apis/coolops.cn/v1alpha1/register.js";
import { controllerName, setupDatabaseManagerController, } from "./controller.js";
import { DATABASES } from "./reconcile.js";
/**
 * true: the real control plane instead of crdgen/testing's in-process server: kube-apiserver,
 * etcd, kube-controller-manager, kube-scheduler and kwok's pods, from $KUBEBUILDER_ASSETS.
 */
const REAL_CONTROL_PLANE = false;
/** Where crdgen wrote the kind's CRD: beside this file, and from the project's root. */
const CRD_BESIDE = "./config/crd/databasemanagers.coolops.cn.yaml";
const CRD_FROM_ROOT = "src/generated/controllers/databasemanager/config/crd/databasemanagers.coolops.cn.yaml";
/**
 * The kind's CRD: beside this file when the test runs from the sources (tsx), else at
 * CRD_FROM_ROOT under the project's root (the nearest folder with a package.json), for the
 * compiled test in dist/.
 */
function crdFile() {
    const beside = fileURLToPath(new URL(CRD_BESIDE, import.meta.url));
    if (existsSync(beside))
        return beside;
    let root = dirname(beside);
    while (!existsSync(join(root, "package.json")) && dirname(root) !== root)
        root = dirname(root);
    return join(root, CRD_FROM_ROOT);
}
/** Resolves with what `probe` gives once it gives something; fails after `timeoutMs`. */
async function until(what, probe, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = await probe();
        if (value !== undefined)
            return value;
        if (Date.now() > deadline)
            assert.fail(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}
let env;
before(async () => {
    const crds = [crdFile()];
    env = REAL_CONTROL_PLANE
        ? await startControlPlane({ crds, workloads: true })
        : await startTestApiServer({ crds, simulateWorkloads: true });
});
after(() => env?.stop());
/** Runs the controller while `body` runs. */
async function withController(body) {
    const manager = newManager({
        client: env.clientConfig,
        name: controllerName,
    });
    setupDatabaseManagerController(manager);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
        await body();
    }
    finally {
        stop.abort();
        await running;
    }
}
const ns = "default";
test("a DatabaseManager gets its Deployment and Service, its status follows the rollout", async () => {
    await withController(async () => {
        const api = restBackend(env.clientConfig);
        const dms = api.resource(DatabaseManagerResource, ns);
        await dms.create({
            apiVersion: "coolops.cn/v1alpha1",
            kind: "DatabaseManager",
            metadata: { name: "orders", namespace: ns },
            spec: { deploymentName: "orders-db", dbtype: "postgres", replicas: 2 },
        });
        const deployments = api.resource(DeploymentResource, ns);
        const deployment = await until("Deployment orders-db", () => deployments.get("orders-db").catch(() => undefined));
        assert.equal(deployment.spec?.replicas, 2);
        const [container] = deployment.spec?.template?.spec?.containers ?? [];
        assert.equal(container?.image, DATABASES["postgres"]?.image);
        const [owner] = deployment.metadata?.ownerReferences ?? [];
        assert.equal(owner?.name, "orders", "controlled by the DatabaseManager");
        const services = api.resource(ServiceResource, ns);
        const service = await until("Service orders-db", () => services.get("orders-db").catch(() => undefined));
        assert.equal(service.spec?.ports?.[0]?.port, 5432);
        await until("status.availableReplicas 2", async () => {
            const { status } = await dms.get("orders");
            return status?.availableReplicas === 2 || undefined;
        });
        const { status } = await dms.get("orders");
        const ready = status?.conditions?.find((c) => c.type === "Ready");
        assert.equal(ready?.status, "True");
    });
});
test("an unknown dbtype is reported in the Ready condition, and nothing is created", async () => {
    await withController(async () => {
        const api = restBackend(env.clientConfig);
        const dms = api.resource(DatabaseManagerResource, ns);
        await dms.create({
            apiVersion: "coolops.cn/v1alpha1",
            kind: "DatabaseManager",
            metadata: { name: "legacy", namespace: ns },
            spec: { deploymentName: "legacy-db", dbtype: "oracle", replicas: 1 },
        });
        const ready = await until("the Ready condition", async () => {
            const { status } = await dms.get("legacy");
            return status?.conditions?.find((c) => c.type === "Ready");
        });
        assert.equal(ready.status, "False");
        assert.equal(ready.reason, "UnknownDBType");
        const deployments = api.resource(DeploymentResource, ns);
        await assert.rejects(deployments.get("legacy-db"), /not found/);
    });
});
