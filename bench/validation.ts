// Validation engine cost: DatabaseManager (OpenAPI only) and Gateway API Gateways (OpenAPI +
// list types + CEL), median CPU time per validate() after warm-up. CPU time (process.cpuUsage)
// rather than wall time, because the machine is shared. Run: npx tsx bench/validation.ts
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { compileValidator, type StructuralValidator } from '../src/runtime/validation/index.js';

const ROUNDS = 15;

/** Median CPU nanoseconds per call of `fn`. */
function medianNs(fn: () => void, iters: number): number {
  for (let i = 0; i < iters; i++) fn();
  const res: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.cpuUsage();
    for (let i = 0; i < iters; i++) fn();
    const d = process.cpuUsage(t);
    res.push(((d.user + d.system) * 1000) / iters);
  }
  res.sort((a, b) => a - b);
  return res[Math.floor(res.length / 2)];
}

function yamlDoc(file: string): Record<string, unknown> {
  return parseAllDocuments(readFileSync(file, 'utf8'))[0].toJS() as Record<string, unknown>;
}

function versionSchema(crd: Record<string, unknown>, version: string): unknown {
  const versions = (crd.spec as { versions: { name: string; schema: { openAPIV3Schema: unknown } }[] }).versions;
  return versions.find((v) => v.name === version)!.schema.openAPIV3Schema;
}

const seed = readFileSync('/work/shared/seed/databasemanager-crd.yaml', 'utf8').replace(
  'type: strin ',
  'type: string ',
);
const dm = compileValidator(versionSchema(parseAllDocuments(seed)[0].toJS() as Record<string, unknown>, 'v1alpha1'));
const dmObj = {
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name: 'db', namespace: 'default' },
  spec: { deploymentName: 'db', replicas: 3, dbtype: 'mysql' },
  status: { availableReplicas: 3 },
};
if (dm.validate(dmObj).length) throw new Error('DatabaseManager example should be valid');
console.log(`DatabaseManager validate: ${(medianNs(() => dm.validate(dmObj), 20000) / 1000).toFixed(2)} µs`);

const gw: StructuralValidator = compileValidator(
  versionSchema(yamlDoc('/work/shared/corpus/crds/gateway-api/gateway.networking.k8s.io_gateways.yaml'), 'v1'),
);
for (const f of ['http-routing--gateway.yaml', 'simple-http-https--gateway.yaml', 'gateway-addresses.yaml']) {
  const obj = yamlDoc(`/work/shared/corpus/validation/gateway-api/valid/${f}`);
  gw.prune(obj);
  gw.applyDefaults(obj);
  if (gw.validate(obj).length) throw new Error(`${f} should be valid`);
  console.log(`Gateway ${f}: ${(medianNs(() => gw.validate(obj), 2000) / 1000).toFixed(1)} µs`);
}

// Where gateway-addresses.yaml's time goes: the same object without the two list-level uniqueness
// rules on spec.addresses (`self.all(a1, … self.exists_one(a2, …))`, quadratic in the addresses).
{
  const schema = structuredClone(
    versionSchema(yamlDoc('/work/shared/corpus/crds/gateway-api/gateway.networking.k8s.io_gateways.yaml'), 'v1'),
  ) as {
    properties: { spec: { properties: { addresses: Record<string, unknown> } } };
  };
  delete schema.properties.spec.properties.addresses['x-kubernetes-validations'];
  const v = compileValidator(schema);
  const obj = yamlDoc('/work/shared/corpus/validation/gateway-api/valid/gateway-addresses.yaml');
  v.prune(obj);
  v.applyDefaults(obj);
  if (v.validate(obj).length) throw new Error('gateway-addresses.yaml should be valid');
  console.log(
    `Gateway gateway-addresses.yaml without the addresses uniqueness rules: ${(medianNs(() => v.validate(obj), 2000) / 1000).toFixed(1)} µs`,
  );
}
