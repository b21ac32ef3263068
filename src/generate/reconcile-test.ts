// controllers/<kind>/reconcile.test.ts, the user's test of reconcile.ts (written once, like
// reconcile.ts): the generic one here — the controller runs against crdgen/testing's server, a
// sample object of the kind is created, the stub reconciler sees it and writes nothing — and the
// data every reconcile test template gets (a starter's included): where the CRD is, the sample.
import type { Kind, SchemaNode } from '../model/types.js';
import { atColumn, ImportTracker, renderCode, type AtColumn } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { tsString } from '../model/naming.js';
import { setOwn } from '../model/schema-json.js';
import { compileRe2 } from '../runtime/validation/re2.js';
import { callLine, fitsLine, importLines } from './layout.js';
import type { EmitContext } from './emitter.js';
import { assertUniqueNames } from './client-kinds.js';
import type { ControllerPlan } from './controller-kinds.js';
import { apiFilePath } from './paths.js';
import { schemaLiteral } from './validators.js';
import { testingImport } from './webhooks.js';

/** Strings tried, in order, for a required string with a pattern: the first it accepts is the sample's. */
const STRING_CANDIDATES = ['sample', 'a', 'sample-1', '1', 'Sample', 'example.com/sample', 'sample.example.com'];

/** A value of each string format the apiserver checks (k8s.io/apiextensions-apiserver's formats). */
const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  datetime: '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  duration: '1s',
  byte: 'c2FtcGxl',
  email: 'sample@example.com',
  uri: 'https://example.com/sample',
  url: 'https://example.com/sample',
  hostname: 'sample.example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  cidr: '192.0.2.0/24',
  uuid: '00000000-0000-4000-8000-000000000000',
  uuid4: '00000000-0000-4000-8000-000000000000',
  mac: '00:00:5e:00:53:01',
};

/** A string `node` accepts (format, pattern, length), or undefined when none of the candidates is. */
function sampleString(node: Extract<SchemaNode, { type: 'string' }>): string | undefined {
  if (node.enum && node.enum.length > 0) return node.enum[0];
  const min = node.minLength ?? 0;
  const max = node.maxLength ?? Infinity;
  const format = node.format !== undefined ? FORMAT_SAMPLES[node.format] : undefined;
  const candidates = format !== undefined ? [format] : [...STRING_CANDIDATES, 'a'.repeat(Math.max(min, 1))];
  let re: ReturnType<typeof compileRe2> | undefined;
  try {
    re = node.pattern !== undefined ? compileRe2(node.pattern) : undefined;
  } catch {
    return undefined;
  }
  return candidates.find((s) => s.length >= min && s.length <= max && (re === undefined || re.test(s)));
}

/** A number in `node`'s bounds (enum first), a multiple of multipleOf. */
function sampleNumber(node: Extract<SchemaNode, { type: 'integer' | 'number' }>): number {
  if (node.enum && node.enum.length > 0) return node.enum[0];
  const step = node.multipleOf ?? 1;
  let n = 0;
  if (node.minimum !== undefined && (n < node.minimum || (node.exclusiveMinimum && n <= node.minimum)))
    n = Math.ceil((node.exclusiveMinimum ? node.minimum + step : node.minimum) / step) * step;
  if (node.maximum !== undefined && (n > node.maximum || (node.exclusiveMaximum && n >= node.maximum)))
    n = Math.floor((node.exclusiveMaximum ? node.maximum - step : node.maximum) / step) * step;
  return n;
}

/**
 * The smallest value `node` takes, as far as its schema says: its default, else its required
 * properties (and as many items as `minItems` asks) filled the same way. Undefined when a
 * required string has a pattern no candidate matches. CEL rules are not read: a sample they
 * refuse is the test's to fix (the API server's message says which rule).
 */
export function sampleValue(node: SchemaNode): unknown {
  if (node.default !== undefined) return node.default;
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (node.embeddedResource)
        Object.assign(out, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sample' } });
      for (const p of node.properties) {
        if (!p.required || Object.hasOwn(out, p.name)) continue;
        const v = sampleValue(p.schema);
        if (v === undefined) return undefined;
        setOwn(out, p.name, v);
      }
      return out;
    }
    case 'map': {
      if ((node.minProperties ?? 0) === 0) return {};
      const v = sampleValue(node.values);
      return v === undefined ? undefined : { sample: v };
    }
    case 'array': {
      const n = node.minItems ?? 0;
      if (n === 0) return [];
      const v = sampleValue(node.items);
      if (v === undefined) return undefined;
      // distinct items where they must be: numbers and strings count up
      return Array.from({ length: n }, (_, i) =>
        i === 0 ? v : typeof v === 'number' ? v + i : typeof v === 'string' ? `${v}${i}` : v,
      );
    }
    case 'string':
      return sampleString(node);
    case 'integer':
    case 'number':
      return sampleNumber(node);
    case 'boolean':
      return false;
    case 'int-or-string':
      return 1;
    case 'unknown':
      return {};
  }
}

/** The sample object the reconcile tests create: name `sample` (in `default` when namespaced), its required fields filled. */
export function sampleObject(group: string, version: string, kind: Kind): Record<string, unknown> {
  const base: Record<string, unknown> = {
    apiVersion: group === '' ? version : `${group}/${version}`,
    kind: kind.kind,
    metadata: { name: 'sample', ...(kind.scope === 'Namespaced' ? { namespace: 'default' } : {}) },
  };
  const root = kind.schema?.type === 'object' ? sampleValue(kind.schema) : undefined;
  if (root !== null && typeof root === 'object')
    for (const [k, v] of Object.entries(root)) if (!Object.hasOwn(base, k)) setOwn(base, k, v);
  return base;
}

/** The operator's CRD file in controllers/<dir>/ (config/crd/<plural>.<group>.yaml, the crd emitter's name). */
export function crdBeside(ck: { group: { name: string }; kind: { plural: string } }): string {
  return `./config/crd/${ck.kind.plural}.${ck.group.name}.yaml`;
}

/** Where the operator's CRD is from the project's root, `out` as the Dockerfile takes it. */
export function crdFromRoot(outDir: string, dir: string, beside: string): string {
  return `${outDir}/controllers/${dir}/${beside.replace(/^\.\//, '')}`;
}

/** `const <name> = "<path>";` as prettier lays it out (after the `=` when too long). */
export function crdConst(name: 'CRD_FROM_ROOT' | 'CRD_BESIDE', path: string): AtColumn {
  return atColumn((w) => {
    const pad = ' '.repeat(w);
    const line = `const ${name} = ${tsString(path)};`;
    return fitsLine(w, line) ? pad + line : `${pad}const ${name} =\n${pad}  ${tsString(path)};`;
  });
}

/** The generic reconcile.test.ts: the sample is seen by the stub and its status is untouched. */
export function renderGenericReconcileTest(
  ctx: EmitContext,
  plan: ControllerPlan,
  path: string,
  outDir: string,
): string {
  const { ck, dir } = plan;
  const n = ck.names;
  const imports = new ImportTracker(['REAL_CONTROL_PLANE', 'CRD_FROM_ROOT', 'CRD_BESIDE', 'crdFile', 'until', 'env']);
  for (const name of ['after', 'before', 'test']) imports.use('node:test', name);
  imports.use('node:assert', 'strict', { as: 'assert' });
  imports.use('node:fs', 'existsSync');
  for (const name of ['dirname', 'join']) imports.use('node:path', name);
  imports.use('node:url', 'fileURLToPath');
  for (const name of ['newManager', 'restBackend']) imports.use(ctx.runtimeImport, name);
  const testing = testingImport(ctx.runtimeImport);
  for (const name of ['startControlPlane', 'startTestApiServer']) imports.use(testing, name);
  imports.use(testing, 'ApiServerHandle', { type: true });
  const type = imports.use(importPath(path, apiFilePath(ck.group.name, ck.version.name, 'types.ts')), n.type, {
    type: true,
  });
  const descriptor = imports.use(
    importPath(path, apiFilePath(ck.group.name, ck.version.name, 'register.ts')),
    `${n.type}Resource`,
  );
  const setupName = imports.use('./controller.js', `setup${n.type}Controller`);
  imports.use('./controller.js', 'controllerName');
  imports.use('./reconcile.js', 'reconcile');
  assertUniqueNames(path, imports.localNames());
  const namespaced = ck.kind.scope === 'Namespaced';
  const sample = sampleObject(ck.group.name, ck.version.name, ck.kind);
  const beside = crdBeside(ck);
  const where = crdFromRoot(outDir, dir, beside);
  const schema = ck.kind.schema;
  const hasStatus = schema?.type === 'object' && schema.properties.some((p) => p.name === 'status');
  return renderCode('controller', 'reconcile-test', {
    type: n.type,
    imports: importLines(imports),
    crdConst: crdConst('CRD_FROM_ROOT', where),
    crdBeside: crdConst('CRD_BESIDE', beside),
    hasStatus,
    testName: tsString(
      `a ${n.type} is seen by the controller, and ${hasStatus ? 'its status is left alone' : 'nothing is written'}`,
    ),
    setupCall: atColumn((w) => callLine(w, setupName, ['manager', '{}', 'recordSeen'], ';')),
    clientLine: atColumn((w) =>
      callLine(
        w,
        `const client = api.resource<${type}>`,
        namespaced ? [descriptor, tsString('default')] : [descriptor],
        ';',
      ),
    ),
    createCall: atColumn((w) => ' '.repeat(w) + schemaLiteral(sample, w, 'const created = await client.create(', ');')),
  });
}
