// The business logic of the DatabaseManager operator: the Deployment and the Service a DatabaseManager
// wants, and what its status says. crdgen wrote this file once and never overwrites it: it is
// yours. controller.ts (regenerated) calls `reconcile` whenever a DatabaseManager changes, or the
// Deployment or Service it controls does.
import {
  type Condition,
  type Deployment,
  DeploymentResource,
  type KubeObject,
  type Result,
  type Service,
  ServiceResource,
  type TypedResource,
  deploymentUpdate,
  findCondition,
  isControlledBy,
  isNotFound,
  serviceUpdate,
  setCondition,
} from "crdgen/runtime";
import type { DatabaseManager } from "../../apis/coolops.cn/v1/types.js";
import { DatabaseManagerResource } from "../../apis/coolops.cn/v1/register.js";
import type { DatabaseManagerContext } from "./controller.js";

/** The status of a DatabaseManager. */
type Status = NonNullable<DatabaseManager["status"]>;

/** What a DatabaseManager wants: a Deployment, nothing, or a spec problem to report (not retried). */
export type Desired =
  | { kind: "Deployment"; deployment: Deployment }
  | { kind: "None" }
  | { kind: "Invalid"; reason: string; message: string };

/** What the controller saw in this reconcile: the owned Deployment, or the spec problem. */
export interface Observed {
  deployment?: Deployment;
  problem?: { reason: string; message: string };
}

/** A container's environment variable. */
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
};

/** The root password of a database, from the Secret `<deploymentName>-credentials` (key `password`), which you create. */
function passwordFrom(variable: string): (deploymentName: string) => EnvVar[] {
  return (deploymentName) => [
    {
      name: variable,
      valueFrom: {
        secretKeyRef: {
          name: `${deploymentName}-credentials`,
          key: "password",
        },
      },
    },
  ];
}

/** How one database type runs: its official image, port and environment. */
interface Database {
  /** The image without its tag: `spec.version` is the tag. */
  image: string;
  /** The version (tag) the defaulting webhook sets when `spec.version` is absent (admission.ts). */
  defaultVersion: string;
  port: number;
  portName: string;
  env?: (deploymentName: string) => EnvVar[];
}

/** An official image, port and environment per `spec.engine` (v1alpha1's `dbtype`). */
export const DATABASES: Readonly<Record<string, Database>> = {
  mysql: {
    image: "mysql",
    defaultVersion: "8.4",
    port: 3306,
    portName: "mysql",
    env: passwordFrom("MYSQL_ROOT_PASSWORD"),
  },
  postgres: {
    image: "postgres",
    defaultVersion: "17",
    port: 5432,
    portName: "postgres",
    env: passwordFrom("POSTGRES_PASSWORD"),
  },
  redis: {
    image: "redis",
    defaultVersion: "7.4",
    port: 6379,
    portName: "redis",
  },
  mongodb: {
    image: "mongo",
    defaultVersion: "8.0",
    port: 27017,
    portName: "mongodb",
  },
};

/** A DNS-1035 label: what a Service name must be (and a label value, at most 63 characters). */
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The Deployment `databaseManager` should own, or why it cannot have one. */
export function desiredDeployment(databaseManager: DatabaseManager): Desired {
  const spec = databaseManager.spec ?? {};
  const name = spec.deploymentName ?? "";
  if (name.length > 63 || !DNS1035_LABEL.test(name)) {
    return {
      kind: "Invalid",
      reason: "InvalidDeploymentName",
      message: `spec.deploymentName ${JSON.stringify(name)} must be a DNS-1035 label (it names the Deployment and its Service)`,
    };
  }
  const db = Object.hasOwn(DATABASES, spec.engine ?? "")
    ? DATABASES[spec.engine ?? ""]
    : undefined;
  if (!db) {
    return {
      kind: "Invalid",
      reason: "UnknownEngine",
      message: `spec.engine ${JSON.stringify(spec.engine ?? "")} is not one of ${Object.keys(DATABASES).join(", ")}`,
    };
  }
  const labels = {
    app: name,
    controller: databaseManager.metadata?.name ?? "",
  };
  return {
    kind: "Deployment",
    deployment: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, labels },
      spec: {
        replicas: spec.replicas ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: spec.engine!,
                image: `${db.image}:${spec.version ?? db.defaultVersion}`,
                ports: [
                  {
                    name: db.portName,
                    containerPort: db.port,
                    protocol: "TCP",
                  },
                ],
                ...(db.env ? { env: db.env(name) } : {}),
              },
            ],
          },
        },
      },
    },
  };
}

/**
 * The Service that lets clients reach the database of `deployment` (as desiredDeployment
 * made it): a ClusterIP Service of the same name, selecting its pods, exposing the
 * database port under its name (`<deploymentName>.<namespace>.svc:<port>`).
 */
export function desiredService(deployment: Deployment): Service {
  const container = deployment.spec?.template.spec?.containers[0];
  const port = container?.ports?.[0];
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: deployment.metadata?.name ?? "",
      labels: { ...deployment.metadata?.labels },
    },
    spec: {
      type: "ClusterIP",
      selector: { ...deployment.spec?.selector.matchLabels },
      ports: [
        {
          name: port?.name ?? "db",
          port: port?.containerPort ?? 0,
          targetPort: port?.name ?? "db",
          protocol: "TCP",
        },
      ],
    },
  };
}

/**
 * The status `databaseManager` should have after this reconcile: `availableReplicas` from the
 * Deployment, `observedGeneration`, and a `Ready` condition (True once every wanted replica
 * is available). Condition times only move when the condition's status changes.
 */
export function desiredStatus(
  databaseManager: DatabaseManager,
  observed: Observed,
): Status {
  const status: Status = structuredClone(databaseManager.status ?? {});
  const generation = databaseManager.metadata?.generation;
  const conditions: Condition[] = [...(status.conditions ?? [])];
  const wanted = databaseManager.spec?.replicas ?? 1;
  const available = observed.deployment?.status?.availableReplicas ?? 0;
  if (observed.problem) {
    setCondition(conditions, {
      type: "Ready",
      status: "False",
      reason: observed.problem.reason,
      message: observed.problem.message,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    });
  } else if (observed.deployment) {
    status.availableReplicas = available;
    const ready = available >= wanted;
    setCondition(conditions, {
      type: "Ready",
      status: ready ? "True" : "False",
      reason: ready ? "DeploymentAvailable" : "DeploymentProgressing",
      message: `${available}/${wanted} replicas available`,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    });
  }
  if (generation !== undefined) status.observedGeneration = generation;
  if (conditions.length > 0 || findCondition(status.conditions, "Ready"))
    status.conditions = conditions;
  return status;
}

/** Writes the status desiredStatus computes, through the /status subresource, only when it changed. */
async function writeStatus(
  databaseManager: DatabaseManager,
  context: DatabaseManagerContext,
  observed: Observed,
): Promise<void> {
  const status = desiredStatus(databaseManager, observed);
  const current = databaseManager.status ?? {};
  if (JSON.stringify(status) === JSON.stringify(current)) return;
  const next = { ...databaseManager, status };
  await context.client.updateStatus(DatabaseManagerResource, next);
}

/**
 * Creates `want` with the controller ownerReference when absent, else updates it when
 * `update` says it is out of line (never mutating the cached copy). An object of that name
 * the DatabaseManager does not control is not taken over: a Warning event `ErrResourceExists` and
 * an error, retried with backoff.
 */
async function ensureOwned<T extends KubeObject>(
  databaseManager: DatabaseManager,
  context: DatabaseManagerContext,
  resource: TypedResource<T>,
  want: T,
  update: (current: T, desired: T) => T | undefined,
): Promise<T> {
  const namespace = databaseManager.metadata?.namespace ?? "";
  const name = want.metadata?.name ?? "";
  const { client, logger, recorder } = context;
  const fields = { [resource.kind.toLowerCase()]: name };
  let current: T | undefined;
  try {
    current = await client.get(resource, { namespace, name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (!current) {
    const obj = structuredClone(want);
    const ownerReferences = [context.ownerReference];
    obj.metadata = { ...obj.metadata, namespace, ownerReferences };
    const created = await client.create(resource, obj);
    logger.info(fields, `created ${resource.kind}`);
    return created;
  }
  if (!isControlledBy(current, databaseManager)) {
    const owner = JSON.stringify(databaseManager.metadata?.name ?? "");
    const message = `Resource ${JSON.stringify(name)} already exists and is not managed by DatabaseManager ${owner}`;
    recorder.event(databaseManager, "Warning", "ErrResourceExists", message);
    throw new Error(message);
  }
  const changed = update(current, want);
  if (!changed) return current;
  const updated = await client.update(resource, changed);
  logger.info(fields, `updated ${resource.kind}`);
  return updated;
}

/**
 * Keeps the Deployment and the Service of `databaseManager` in line with its spec and its
 * status in line with the Deployment (see the functions above); a spec problem is reported
 * on the object (a Warning event and the status) and not retried: a spec change brings it
 * back. Ends with a Normal `Synced` event.
 */
export async function reconcile(
  databaseManager: DatabaseManager,
  context: DatabaseManagerContext,
): Promise<Result> {
  const desired = desiredDeployment(databaseManager);
  if (desired.kind === "Invalid") {
    const { reason, message } = desired;
    context.recorder.event(databaseManager, "Warning", reason, message);
    await writeStatus(databaseManager, context, { problem: desired });
    return {};
  }
  if (desired.kind === "None") {
    await writeStatus(databaseManager, context, {});
    return {};
  }
  const deployment = await ensureOwned(
    databaseManager,
    context,
    DeploymentResource,
    desired.deployment,
    deploymentUpdate,
  );
  await ensureOwned(
    databaseManager,
    context,
    ServiceResource,
    desiredService(desired.deployment),
    serviceUpdate,
  );
  await writeStatus(databaseManager, context, { deployment });
  const synced = "DatabaseManager synced successfully";
  context.recorder.event(databaseManager, "Normal", "Synced", synced);
  return {};
}
