import { parseArgs } from "node:util";
import * as k8s from "@kubernetes/client-node";
const GROUP = "coolops.cn";
const VERSION = "v1alpha1";
const PLURAL = "databasemanagers";
const IMAGES = {
  mysql: "mysql:8.4",
  postgres: "postgres:17",
  redis: "redis:7.4",
  mongodb: "mongo:8.0"
};
const PORTS = { mysql: 3306, postgres: 5432, redis: 6379, mongodb: 27017 };
function log(fields, msg) {
  process.stdout.write(`${JSON.stringify({ level: "info", time: (/* @__PURE__ */ new Date()).toISOString(), msg, ...fields })}
`);
}
class KeyQueue {
  waiting = [];
  queued = /* @__PURE__ */ new Set();
  processing = /* @__PURE__ */ new Set();
  dirty = /* @__PURE__ */ new Set();
  waiters = [];
  failures = /* @__PURE__ */ new Map();
  add(key) {
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.waiting.push(key);
  }
  get() {
    const key = this.waiting.shift();
    if (key !== void 0) {
      this.queued.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  done(key) {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }
  /** Re-adds `key` after 5 ms × 2^failures (at most 1000 s), as client-go's default item backoff. */
  retry(key) {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    setTimeout(() => this.add(key), Math.min(5 * 2 ** n, 1e6)).unref();
  }
  forget(key) {
    this.failures.delete(key);
  }
}
function statusCode(err) {
  const e = err;
  return e.code ?? e.statusCode;
}
async function main() {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: "string" },
      workers: { type: "string", default: "4" },
      namespace: { type: "string" }
    }
  });
  const kc = new k8s.KubeConfig();
  if (values.kubeconfig) kc.loadFromFile(values.kubeconfig);
  else kc.loadFromDefault();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = values.namespace;
  const within = ns ? `/namespaces/${ns}` : "";
  const dms = k8s.makeInformer(
    kc,
    `/apis/${GROUP}/${VERSION}${within}/${PLURAL}`,
    () => ns ? custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL }) : custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })
  );
  const deployments = k8s.makeInformer(
    kc,
    `/apis/apps/v1${within}/deployments`,
    () => ns ? apps.listNamespacedDeployment({ namespace: ns }) : apps.listDeploymentForAllNamespaces()
  );
  const services = k8s.makeInformer(
    kc,
    `/api/v1${within}/services`,
    () => ns ? core.listNamespacedService({ namespace: ns }) : core.listServiceForAllNamespaces()
  );
  const queue = new KeyQueue();
  const keyOf = (o) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
  dms.on("add", (o) => queue.add(keyOf(o)));
  dms.on("update", (o) => queue.add(keyOf(o)));
  const owner = (d) => {
    const ref = d.metadata?.ownerReferences?.find((r) => r.controller);
    if (ref?.kind === "DatabaseManager" && ref.apiVersion.startsWith(`${GROUP}/`))
      queue.add(`${d.metadata?.namespace ?? ""}/${ref.name}`);
  };
  deployments.on("add", owner);
  deployments.on("update", owner);
  deployments.on("delete", owner);
  services.on("add", owner);
  services.on("update", owner);
  services.on("delete", owner);
  for (const inf of [dms, deployments, services])
    inf.on("error", (e) => log({ err: String(e) }, "informer error"));
  await Promise.all([dms.start(), deployments.start(), services.start()]);
  log({}, "caches synced; starting workers");
  const reconcile = async (key) => {
    const [namespace, name] = key.split("/");
    const dm = dms.get(name, namespace);
    if (!dm) return;
    const depName = dm.spec?.deploymentName ?? "";
    const image = IMAGES[dm.spec?.dbtype ?? ""];
    const replicas = dm.spec?.replicas ?? 1;
    let dep = deployments.get(depName, namespace);
    if (image && depName) {
      const labels = { app: depName, controller: name };
      const dbtype = dm.spec?.dbtype ?? "db";
      const port = PORTS[dbtype];
      const ownerReferences = [
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: "DatabaseManager",
          name,
          uid: dm.metadata?.uid ?? "",
          controller: true,
          blockOwnerDeletion: true
        }
      ];
      if (!dep) {
        const body2 = {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: depName, namespace, labels, ownerReferences },
          spec: {
            replicas,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                containers: [{ name: dbtype, image, ports: [{ name: dbtype, containerPort: port, protocol: "TCP" }] }]
              }
            }
          }
        };
        dep = await apps.createNamespacedDeployment({ namespace, body: body2 });
      }
      if (!dep.metadata?.ownerReferences?.some((r) => r.controller && r.uid === dm.metadata?.uid))
        throw new Error(`Deployment ${depName} is not controlled by ${name}`);
      const container = dep.spec?.template.spec?.containers[0];
      if (dep.spec?.replicas !== replicas || container?.image !== image) {
        const body2 = structuredClone(dep);
        body2.spec.replicas = replicas;
        body2.spec.template.spec.containers[0].image = image;
        dep = await apps.replaceNamespacedDeployment({ name: depName, namespace, body: body2 });
      }
      const svcSpec = {
        type: "ClusterIP",
        selector: labels,
        ports: [{ name: dbtype, port, targetPort: dbtype, protocol: "TCP" }]
      };
      const svc = services.get(depName, namespace);
      if (!svc) {
        await core.createNamespacedService({
          namespace,
          body: {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: depName, namespace, labels, ownerReferences },
            spec: svcSpec
          }
        });
      } else {
        if (!svc.metadata?.ownerReferences?.some((r) => r.controller && r.uid === dm.metadata?.uid))
          throw new Error(`Service ${depName} is not controlled by ${name}`);
        const p = svc.spec?.ports?.[0];
        const drift = svc.spec?.type !== "ClusterIP" || JSON.stringify(svc.spec?.selector) !== JSON.stringify(labels) || svc.spec?.ports?.length !== 1 || p?.name !== dbtype || p.port !== port || String(p.targetPort) !== dbtype || p.protocol !== "TCP";
        if (drift) {
          const body2 = structuredClone(svc);
          body2.spec = { ...body2.spec, ...svcSpec };
          await core.replaceNamespacedService({ name: depName, namespace, body: body2 });
        }
      }
    }
    const available = dep?.status?.availableReplicas ?? 0;
    const ready = Boolean(image) && available === replicas;
    const prev = dm.status?.conditions?.find((c) => c.type === "Ready");
    const status = ready ? "True" : "False";
    const reason = !image ? "UnknownDBType" : ready ? "DeploymentAvailable" : "DeploymentProgressing";
    const generation = dm.metadata?.generation ?? 0;
    if (dm.status?.availableReplicas === available && dm.status?.observedGeneration === generation && prev?.status === status && prev.reason === reason)
      return;
    const condition = {
      type: "Ready",
      status,
      reason,
      message: `${available}/${replicas} replicas available`,
      observedGeneration: generation,
      lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : /* @__PURE__ */ new Date()
    };
    const body = {
      ...dm,
      status: { availableReplicas: available, observedGeneration: generation, conditions: [condition] }
    };
    await custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name,
      body
    });
  };
  const worker = async () => {
    for (; ; ) {
      const key = await queue.get();
      const startedAt = (/* @__PURE__ */ new Date()).toISOString();
      let result = "success";
      try {
        await reconcile(key);
        queue.forget(key);
      } catch (err) {
        result = statusCode(err) === 409 ? "requeue" : "error";
        queue.retry(key);
      } finally {
        queue.done(key);
      }
      log({ key, result, startedAt }, "reconciled");
    }
  };
  const workers = Math.max(1, Number(values.workers));
  await Promise.all(Array.from({ length: workers }, () => worker()));
}
process.on("SIGTERM", () => process.exit(0));
await main();
