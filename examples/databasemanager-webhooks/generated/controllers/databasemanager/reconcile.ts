// The business logic of the DatabaseManager operator: what Deployment a DatabaseManager wants and what
// its status says. crdgen wrote this file once and never overwrites it: it is yours.
// controller.ts (regenerated) calls these hooks on every reconcile.
import {
  findCondition,
  setCondition,
  type Condition,
  type Deployment,
} from "crdgen/runtime";
import type { DatabaseManager } from "../../apis/coolops.cn/v1/types.js";

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

const DNS1123_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The Deployment `databaseManager` should own, or why it cannot have one. */
export function desiredDeployment(databaseManager: DatabaseManager): Desired {
  const spec = databaseManager.spec ?? {};
  const name = spec.deploymentName ?? "";
  if (name === "" || name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return {
      kind: "Invalid",
      reason: "InvalidDeploymentName",
      message: `spec.deploymentName ${JSON.stringify(name)} must be a non-empty DNS-1123 subdomain`,
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
