// Fetches what the real kube-apiserver serves about the built-in kinds and writes it, with the
// Kubernetes version, under schema/kubernetes/<version>/ (committed):
//   - openapi-v3.json: the OpenAPI v3 schemas of the groups an operator commonly uses, merged
//     into one document (the typed built-ins are generated from it: `npm run builtins:update`;
//     crdgen/testing reads the built-ins' fields from it), with the paths that serve them kept to
//     what names a resource (each operation's x-kubernetes-action and x-kubernetes-group-version-kind,
//     which give `crdgen generate` the plural, scope, verbs and subresources of each kind);
//   - table-columns.json: the Table column definitions `kubectl get` receives for each built-in
//     resource (crdgen/testing serves the same).
//   node --import tsx scripts/fetch-kubernetes-openapi.ts [ASSETS]   (default: CRDGEN_TEST_ASSETS)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '../src/testing/control-plane.js';
import { RestClient } from '../src/runtime/client/rest-client.js';

/** The group versions kept (paths under /openapi/v3). */
export const GROUP_VERSIONS = [
  'api/v1',
  'apis/apps/v1',
  'apis/batch/v1',
  'apis/networking.k8s.io/v1',
  'apis/policy/v1',
  'apis/coordination.k8s.io/v1',
  'apis/events.k8s.io/v1',
  'apis/apiextensions.k8s.io/v1',
  'apis/autoscaling/v1',
  'apis/rbac.authorization.k8s.io/v1',
  'apis/admissionregistration.k8s.io/v1',
];

/** Resources whose Table columns are kept (list paths). */
export const TABLE_RESOURCES = [
  '/api/v1/namespaces',
  '/api/v1/events',
  '/api/v1/configmaps',
  '/api/v1/secrets',
  '/api/v1/services',
  '/api/v1/serviceaccounts',
  '/api/v1/pods',
  '/api/v1/persistentvolumeclaims',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/replicasets',
  '/apis/apps/v1/statefulsets',
  '/apis/apps/v1/daemonsets',
  '/apis/batch/v1/jobs',
  '/apis/batch/v1/cronjobs',
  '/apis/networking.k8s.io/v1/ingresses',
  '/apis/policy/v1/poddisruptionbudgets',
  '/apis/coordination.k8s.io/v1/leases',
  '/apis/events.k8s.io/v1/events',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = process.argv[2] ?? process.env.CRDGEN_TEST_ASSETS;
const cp = await startControlPlane({ assets });
try {
  const client = new RestClient(cp.clientConfig);
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const gv of GROUP_VERSIONS) {
    const doc = await client.request<{
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    }>({ method: 'GET', path: `/openapi/v3/${gv}` });
    for (const [name, s] of Object.entries(doc.components.schemas)) schemas[name] ??= s;
    for (const [path, item] of Object.entries(doc.paths)) {
      const ops: Record<string, unknown> = {};
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method] as Record<string, unknown> | undefined;
        if (!op || op['x-kubernetes-action'] === undefined) continue;
        ops[method] = {
          operationId: op.operationId,
          'x-kubernetes-action': op['x-kubernetes-action'],
          'x-kubernetes-group-version-kind': op['x-kubernetes-group-version-kind'],
        };
      }
      if (Object.keys(ops).length > 0) paths[path] = ops;
    }
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((k) => [k, paths[k]]),
  );
  const out = {
    openapi: '3.0.0',
    info: {
      title: 'Kubernetes',
      version: cp.version,
      'x-crdgen-source': `kube-apiserver ${cp.version}: /openapi/v3/{${GROUP_VERSIONS.join(',')}} components.schemas and paths, merged; each operation kept to operationId, x-kubernetes-action and x-kubernetes-group-version-kind`,
    },
    paths: sortedPaths,
    components: { schemas: sorted },
  };
  const file = join(root, 'schema', 'kubernetes', cp.version, 'openapi-v3.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote ${Object.keys(sorted).length} schemas to ${file}`);
  const columns: Record<string, unknown> = {};
  const tables = new RestClient({
    ...cp.clientConfig,
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
  });
  for (const path of TABLE_RESOURCES) {
    const table = await tables.request<{ columnDefinitions: unknown }>({ method: 'GET', path });
    columns[path.replace(/^\/apis?\//, '')] = table.columnDefinitions;
  }
  const colFile = join(root, 'schema', 'kubernetes', cp.version, 'table-columns.json');
  writeFileSync(colFile, `${JSON.stringify({ kubernetesVersion: cp.version, columns }, null, 1)}\n`);
  console.log(`wrote the Table columns of ${TABLE_RESOURCES.length} resources to ${colFile}`);
  tables.close();
  client.close();
} finally {
  await cp.stop();
}
