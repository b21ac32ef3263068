// CEL evaluation: crdgen's evaluator (closures over a slot frame, after its type check) against
// @bufbuild/cel's (plan + run, the maintained CEL evaluator on npm), on rules of the corpus and the
// Gateway API example objects. Median CPU time per evaluation after warm-up (process.cpuUsage, as
// the machine is shared). Both compile once; only evaluation is timed. The question it answers:
// once crdgen type-checks rules itself, is its own evaluator still the better choice?
// Run: npm run bench -- cel   (or: npx tsx bench/cel-evaluators.ts)
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { celEnv, parse as bufParse, plan } from '@bufbuild/cel';
import { parseAllDocuments } from 'yaml';
import { compileChecked } from '../src/runtime/cel/compile.js';
import { schemaType } from '../src/runtime/cel/schema-types.js';
import { fromJson } from '../src/runtime/cel/value.js';
import { compileNode } from '../src/runtime/validation/node.js';
import { reduceSchema } from '../src/runtime/validation/schema.js';
import { compileValidator } from '../src/runtime/validation/index.js';

const ROUNDS = 15;

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

const yamlDoc = (f: string) => parseAllDocuments(readFileSync(f, 'utf8'))[0].toJS() as Record<string, unknown>;
const crd = yamlDoc('/work/shared/corpus/crds/gateway-api/gateway.networking.k8s.io_gateways.yaml') as {
  spec: { versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
};
const root = compileNode(reduceSchema(crd.spec.versions.find((v) => v.name === 'v1')!.schema.openAPIV3Schema));
const spec = root.props!.get('spec')!;
const addressesNode = spec.props!.get('addresses')!;
const listenersNode = spec.props!.get('listeners')!;
// the objects as the validator sees them: defaulted (address `type` defaults to IPAddress)
const validator = compileValidator(crd.spec.versions.find((v) => v.name === 'v1')!.schema.openAPIV3Schema);
const example = (f: string) => {
  const o = yamlDoc(`/work/shared/corpus/validation/gateway-api/valid/${f}`);
  validator.applyDefaults(o);
  return o;
};
const gwAddr = example('gateway-addresses.yaml') as { spec: { addresses: unknown[]; listeners: unknown[] } };
const gwHttp = example('simple-http-https--gateway.yaml') as { spec: { listeners: unknown[] } };

interface Case {
  name: string;
  rule: string;
  node: typeof spec;
  value: unknown;
}

const CASES: Case[] = [
  {
    name: 'addresses: unique IPs (all × exists_one, 16 items)',
    rule: "self.all(a1, a1.type == 'IPAddress' && has(a1.value) ? self.exists_one(a2, a2.type == a1.type && has(a2.value) && a2.value == a1.value) : true )",
    node: addressesNode,
    value: gwAddr.spec.addresses,
  },
  {
    name: 'listeners: unique names (all × exists_one)',
    rule: 'self.all(l1, self.exists_one(l2, l1.name == l2.name))',
    node: listenersNode,
    value: gwHttp.spec.listeners,
  },
  {
    name: 'listeners: tls mode when HTTPS',
    rule: "self.all(l, l.protocol in ['HTTPS', 'TLS'] ? has(l.tls) : true)",
    node: listenersNode,
    value: gwHttp.spec.listeners,
  },
  { name: 'scalar: int compare', rule: 'self.size() <= 64', node: listenersNode, value: gwHttp.spec.listeners },
];

const env = celEnv({});
console.log('| rule | crdgen µs | @bufbuild/cel µs | ratio |');
console.log('|---|---|---|---|');
for (const c of CASES) {
  const type = schemaType(c.node, false)!;
  const ours = compileChecked(
    c.rule,
    new Map([
      ['self', type],
      ['oldSelf', type],
    ]),
  );
  if (!ours.ok) throw new Error(`${c.rule}: ${ours.message}`);
  const check = ours.program.run(fromJson(c.node, c.value, new WeakMap()));
  const buf = plan(env, bufParse(c.rule));
  const bufResult = buf({ self: c.value as never });
  if (bufResult !== check) throw new Error(`${c.name}: crdgen ${inspect(check)}, @bufbuild/cel ${inspect(bufResult)}`);
  // each evaluation converts the object afresh (as a validate() call does), so conversion is timed too
  const a = medianNs(() => ours.program.run(fromJson(c.node, c.value, new WeakMap())), 2000);
  const b = medianNs(() => buf({ self: c.value as never }), 2000);
  console.log(`| ${c.name} | ${(a / 1000).toFixed(2)} | ${(b / 1000).toFixed(2)} | ${(b / a).toFixed(1)}× |`);
}
