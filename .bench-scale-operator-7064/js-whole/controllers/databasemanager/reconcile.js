// The business logic of the DatabaseManager operator (crdgen's databasemanager starter),
// written once and never overwritten: it is yours. controller.ts calls `reconcile` whenever a
// DatabaseManager changes, or the Deployment or Service it controls does.
import { DeploymentResource, ServiceResource, isControlledBy, semanticEqual, setCondition, } from "/tmp/crdgen-bench-pkg-vbOfq4/dist/runtime/index.js";
import { DatabaseManagerResource } from "../../apis/coolops.cn/v1alpha1/register.js";
/** The databases `spec.dbtype` names. */
export const DATABASES = {
    mysql: { image: "mysql:8.4", port: 3306, password: "MYSQL_ROOT_PASSWORD" },
    postgres: { image: "postgres:17", port: 5432, password: "POSTGRES_PASSWORD" },
    redis: { image: "redis:7.4", port: 6379 },
    mongodb: { image: "mongo:8.0", port: 27017 },
};
/** The database the spec of `dm` names, or why the spec cannot be done. */
export function databaseOf(dm) {
    const { deploymentName = "", dbtype = "" } = dm.spec ?? {};
    // it names the Service too: a DNS-1035 label
    if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(deploymentName)) {
        const message = `spec.deploymentName "${deploymentName}" is not a DNS-1035 label`;
        return { reason: "InvalidDeploymentName", message };
    }
    const db = Object.hasOwn(DATABASES, dbtype) ? DATABASES[dbtype] : undefined;
    if (db)
        return db;
    const message = `spec.dbtype "${dbtype}" is not one of ${Object.keys(DATABASES).join(", ")}`;
    return { reason: "UnknownDBType", message };
}
/**
 * Keeps the Deployment and the Service of `dm` in line with its spec: only the fields set here
 * are compared, so what the API server defaults is no change. Services are cached as metadata
 * only (controller.ts): createOrUpdate judges one from the record of what was set here and its
 * managedFields, and reads it whole only when those say it changed.
 * Its status follows the Deployment, written when it changes.
 */
export async function reconcile(dm, context) {
    const { client, recorder, ownerReference } = context;
    const name = dm.spec?.deploymentName ?? "";
    const { dbtype = "", replicas = 1 } = dm.spec ?? {};
    const key = { namespace: dm.metadata?.namespace ?? "", name };
    // creates or updates the object through `set` (sends nothing when nothing changes), with the
    // controller ownerReference; one that `dm` does not control is not taken over: an error
    async function ensure(resource, set) {
        const result = await client.createOrUpdate(resource, key, (obj) => {
            if (obj.metadata?.uid === undefined) {
                obj.metadata = { ...obj.metadata, ownerReferences: [ownerReference] };
            }
            else if (!isControlledBy(obj, dm)) {
                const message = `Resource "${name}" already exists and is not managed by DatabaseManager "${dm.metadata?.name}"`;
                recorder.event(dm, "Warning", "ErrResourceExists", message);
                throw new Error(message);
            }
            set(obj);
        });
        const fields = { [resource.kind.toLowerCase()]: name }; // { deployment: "orders-db" }
        if (result.operation !== "unchanged")
            context.logger.info(fields, `${result.operation} ${resource.kind}`);
        return result.object;
    }
    const db = databaseOf(dm);
    const problem = "reason" in db ? db : undefined;
    let available;
    if ("reason" in db)
        recorder.event(dm, "Warning", db.reason, db.message);
    else {
        const { image, port, password } = db;
        const labels = { app: name, controller: dm.metadata?.name ?? "" };
        const secretKeyRef = { name: `${name}-credentials`, key: "password" };
        const podPorts = [
            { name: dbtype, containerPort: port, protocol: "TCP" },
        ];
        const deployment = await ensure(DeploymentResource, (d) => {
            const pod = d.spec?.template;
            const [current] = pod?.spec?.containers ?? [];
            const container = { ...current, name: dbtype, image, ports: podPorts };
            if (password)
                container.env = [{ name: password, valueFrom: { secretKeyRef } }];
            else
                delete container.env;
            d.spec = {
                ...d.spec,
                replicas,
                selector: { matchLabels: labels },
                template: {
                    ...pod,
                    metadata: { ...pod?.metadata, labels },
                    spec: { ...pod?.spec, containers: [container] },
                },
            };
        });
        await ensure(ServiceResource, (s) => {
            const ports = [
                { name: dbtype, port, targetPort: dbtype, protocol: "TCP" },
            ];
            s.spec = { ...s.spec, type: "ClusterIP", selector: labels, ports };
        });
        available = deployment.status?.availableReplicas ?? 0;
    }
    const status = { ...structuredClone(dm.status) };
    const generation = dm.metadata?.generation ?? 0;
    if (available !== undefined)
        status.availableReplicas = available;
    status.observedGeneration = generation;
    const ready = available !== undefined && available >= replicas;
    setCondition((status.conditions ??= []), {
        type: "Ready",
        status: ready ? "True" : "False",
        reason: ready ? "DeploymentAvailable" : "DeploymentProgressing",
        message: `${available}/${replicas} replicas available`,
        ...problem,
        observedGeneration: generation,
    });
    if (!semanticEqual(status, dm.status ?? {}))
        await client.updateStatus(DatabaseManagerResource, { ...dm, status });
    if (!problem)
        recorder.event(dm, "Normal", "Synced", "Synced successfully");
    return {};
}
