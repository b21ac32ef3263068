// Fetches the OpenAPI v3 documents the real kube-apiserver serves for the built-in groups an
// operator commonly uses and writes their schemas, merged into one OpenAPI v3 document, to
// schema/kubernetes/<version>/openapi-v3.json (committed: the typed built-ins are generated
// from it, and crdgen/testing reads the built-ins' field topology from it).
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

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = process.argv[2] ?? process.env.CRDGEN_TEST_ASSETS;
const cp = await startControlPlane({ assets });
try {
  const client = new RestClient(cp.clientConfig);
  const schemas: Record<string, unknown> = {};
  for (const gv of GROUP_VERSIONS) {
    const doc = await client.request<{ components: { schemas: Record<string, unknown> } }>({ method: 'GET', path: `/openapi/v3/${gv}` });
    for (const [name, s] of Object.entries(doc.components.schemas)) schemas[name] ??= s;
  }
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]]));
  const out = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: cp.version, 'x-crdgen-source': `kube-apiserver ${cp.version}: /openapi/v3/{${GROUP_VERSIONS.join(',')}} components.schemas, merged` },
    paths: {},
    components: { schemas: sorted },
  };
  const file = join(root, 'schema', 'kubernetes', cp.version, 'openapi-v3.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote ${Object.keys(sorted).length} schemas to ${file}`);
  client.close();
} finally {
  await cp.stop();
}
