// Output, with `--webhooks` (or `webhooks: true`), for each kind named by `--controller`, in controllers/<kind>/:
//   webhooks.ts               — `setupWebhooks(server)`: the defaulting, validating and conversion webhooks on the
//                               runtime's server (runOperator passes it; --webhook-bind-address), and
//                               `webhookCertificates`: what --webhook-cert-mode=self writes its CA into (regenerated)
//   admission.ts              — `default<Kind>(obj)`, `validate<Kind>(obj, old, operation)`: the user's hooks, run after
//                               the schema's defaulting and validation (user-owned, written once)
//   conversion.generated.ts   — for a kind with several versions: hub-and-spoke conversions (the storage version is the hub)
//                               that copy every field with the same path and shape in both versions (regenerated)
//   conversion.ts             — what differs between the versions: one function per direction (user-owned, written once)
//   conversion.test.ts        — the round-trip property test (fast-check over each version's schema) (regenerated)
//   config/webhooks.yaml      — Service, Mutating/ValidatingWebhookConfiguration, cert-manager Issuer and Certificate
// The controller emitter adds what the rest of the operator needs (controller.ts asks {@link operatorWebhooks}): main.ts
// passes `webhooks: setupWebhooks` and `webhookCertificates`, the ClusterRole and Role get the rules of
// --webhook-cert-mode=self ({@link webhookCertificateRbac}), config/manager.yaml mounts the certificate Secret, config/crd.yaml gets the
// conversion stanza.
import type { Group, Kind, Model, SchemaNode } from '../model/types.js';
import { setOwn } from '../model/schema-json.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode, type AtColumn } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { compareKubeVersions, isSafePathSegment, privateName, publicName, tsString } from '../model/naming.js';
import { compareStrings } from '../model/order.js';
import { callLine, fitsLine, importLines, propertyLine } from './layout.js';
import { emitsGroup, type EmitContext, type Emitter, type GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { ControllerOptionsError, resolveControllerKind } from './controller-kinds.js';
import { generatedYamlHeader } from './crd.js';
import { schemaLiteral } from './validators.js';
import { assertUniqueNames, type ClientKind } from './client-kinds.js';
import type { CopyPlan } from '../runtime/webhook/field-copy.js';
import type { WebhookCertificateTargets } from '../runtime/webhook/cert-rotation.js';
import { createRequire } from 'node:module';

/** The path of the conversion webhook (config/crd.yaml's `spec.conversion.webhook.clientConfig.service.path`). */
export const CONVERT_PATH = '/convert';

/** One version of a kind that a conversion handles (served or not: the apiserver may hold objects of any). */
export interface ConversionVersion {
  version: string;
  kind: Kind;
  /** Generated types exist for served versions only. */
  served: boolean;
}

/** The names the webhook files and manifests of one operator use. */
export interface WebhookNames {
  /** `controllers/<dir>/` */
  dir: string;
  namespace: string;
  /** The operator's Deployment and its pods' `app.kubernetes.io/name`. */
  operator: string;
  service: string;
  issuer: string;
  certificate: string;
  /** The Secret cert-manager writes the serving certificate into (mounted by the manager Deployment). */
  secret: string;
  mutatingConfiguration: string;
  validatingConfiguration: string;
  /** The webhooks' names in the configurations (`m<kind>-<version>.<group>`: a CRD group has a dot, so three labels or more). */
  mutatingWebhook: string;
  validatingWebhook: string;
  mutatePath: string;
  validatePath: string;
  /** Where the pod reads the certificate (controller-runtime's default, the operator's `--webhook-cert-dir` default). */
  certDir: string;
}

/** The webhook facts of one `--controller` kind: its hub, its versions (hub first), names. */
export interface OperatorWebhooks {
  ck: ClientKind;
  group: Group;
  hub: string;
  versions: ConversionVersion[];
  /** Several versions: conversion.* files and the CRD's conversion stanza. */
  converts: boolean;
  names: WebhookNames;
}

/** The operator's default `--webhook-cert-dir` (controller-runtime's). */
export const WEBHOOK_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';

/** Every version of the kind `ck` is a version of: the model's served ones and the CRD's unserved ones, in kube order. */
export function conversionVersions(group: Group, kindName: string): ConversionVersion[] {
  const out: ConversionVersion[] = [];
  for (const v of group.versions) {
    const k = v.kinds.find((x) => x.kind === kindName);
    if (k) out.push({ version: v.name, kind: k, served: k.served });
  }
  const facts = out.find((v) => v.kind.crd)?.kind.crd;
  for (const u of facts?.unserved ?? []) {
    if (u.kind.kind === kindName && !out.some((v) => v.version === u.version))
      out.push({ version: u.version, kind: u.kind, served: false });
  }
  return out.sort((a, b) => compareKubeVersions(a.version, b.version));
}

/**
 * The webhook facts of the operator of `ck` (a `--controller` kind), or undefined when
 * the run has no `--webhooks`. The hub is the storage version (the controller's version);
 * throws {@link ControllerOptionsError} when the storage version is not served.
 */
export function operatorWebhooks(ctx: EmitContext, ck: ClientKind): OperatorWebhooks | undefined {
  if (!ctx.webhooks) return undefined;
  if (!ck.kind.storage)
    throw new ControllerOptionsError(
      `--webhooks: the storage version of ${ck.kind.kind} is not served; conversion needs the storage version as its hub`,
    );
  const group = ck.group;
  const versions = conversionVersions(group, ck.kind.kind);
  const hub = ck.version.name;
  versions.sort((a, b) => (a.version === hub ? -1 : b.version === hub ? 1 : 0));
  const dir = ck.kind.kind.toLowerCase();
  const lower = dir;
  const dashed = group.name.replace(/\./g, '-');
  const namespace = `${dir}-system`;
  const names: WebhookNames = {
    dir,
    namespace,
    operator: `${dir}-operator`,
    service: `${dir}-webhook-service`,
    issuer: `${dir}-selfsigned-issuer`,
    certificate: `${dir}-serving-cert`,
    secret: `${dir}-webhook-server-cert`,
    mutatingConfiguration: `${dir}-mutating-webhook-configuration`,
    validatingConfiguration: `${dir}-validating-webhook-configuration`,
    mutatingWebhook: `m${lower}-${hub}.${group.name}`,
    validatingWebhook: `v${lower}-${hub}.${group.name}`,
    mutatePath: `/mutate-${dashed}-${hub}-${lower}`,
    validatePath: `/validate-${dashed}-${hub}-${lower}`,
    certDir: WEBHOOK_CERT_DIR,
  };
  return { ck, group, hub, versions, converts: versions.length > 1, names };
}

// ---------------------------------------------------------------------------------------------
// Copy plans: the fields with the same path and shape in two versions.

function sameShape(a: SchemaNode, b: SchemaNode): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'object': {
      const o = b as typeof a;
      if (a.preserveUnknownFields !== o.preserveUnknownFields || a.embeddedResource !== o.embeddedResource)
        return false;
      if (a.properties.length !== o.properties.length) return false;
      const other = new Map(o.properties.map((p) => [p.name, p.schema]));
      return a.properties.every((p) => {
        const s = other.get(p.name);
        return s !== undefined && sameShape(p.schema, s);
      });
    }
    case 'map':
      return sameShape(a.values, (b as typeof a).values);
    case 'array':
      return sameShape(a.items, (b as typeof a).items);
    case 'unknown':
      return a.object === (b as typeof a).object;
    default:
      return true;
  }
}

const ROOT_META = ['apiVersion', 'kind', 'metadata'];

/** What to copy from a value of schema `a` into one of schema `b` (symmetric); undefined when nothing. */
export function copyPlan(a: SchemaNode, b: SchemaNode): CopyPlan | undefined {
  if (sameShape(a, b)) return true;
  if (a.type === 'object' && b.type === 'object') return objectPlan(a, b, false);
  if (a.type === 'map' && b.type === 'map') {
    const values = copyPlan(a.values, b.values);
    return values === undefined ? undefined : { values };
  }
  if (a.type === 'array' && b.type === 'array') {
    const items = copyPlan(a.items, b.items);
    return items === undefined ? undefined : { items };
  }
  return undefined;
}

function objectPlan(
  a: SchemaNode & { type: 'object' },
  b: SchemaNode & { type: 'object' },
  root: boolean,
): CopyPlan | undefined {
  const fields: Record<string, CopyPlan> = {};
  const inB = new Map(b.properties.map((p) => [p.name, p.schema]));
  for (const p of a.properties) {
    if (root && ROOT_META.includes(p.name)) continue;
    const other = inB.get(p.name);
    if (other === undefined) continue;
    const plan = copyPlan(p.schema, other);
    if (plan !== undefined) setOwn(fields, p.name, plan);
  }
  if (root || (a.embeddedResource && b.embeddedResource)) {
    for (const m of ROOT_META) if (!root || m === 'metadata') setOwn(fields, m, true);
  }
  const unknown = a.preserveUnknownFields && b.preserveUnknownFields;
  if (Object.keys(fields).length === 0 && !unknown) return undefined;
  if (!unknown) return { fields };
  const declared = [
    ...new Set([...a.properties.map((p) => p.name), ...b.properties.map((p) => p.name), ...(root ? ROOT_META : [])]),
  ];
  const except = declared.filter((n) => !Object.hasOwn(fields, n)).sort(compareStrings);
  return except.length ? { fields, unknown: true, except } : { fields, unknown: true };
}

/** The plan of a whole object between two versions: spec, status … and metadata (apiVersion and kind are the conversion's). */
export function rootCopyPlan(a: Kind, b: Kind): CopyPlan {
  const any: SchemaNode = { type: 'object', properties: [], preserveUnknownFields: true, embeddedResource: false };
  const sa = a.schema?.type === 'object' ? a.schema : any;
  const sb = b.schema?.type === 'object' ? b.schema : any;
  return objectPlan(sa, sb, true) ?? { fields: { metadata: true } };
}

/**
 * The parts of a schema the round-trip property's object generator reads (type, properties,
 * items, additionalProperties, enum, format, bounds, int-or-string, preserve-unknown-fields).
 */
export function arbitrarySchema(node: SchemaNode | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!node) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const set = (k: string, v: unknown): void => setOwn(out, k, v);
  switch (node.type) {
    case 'object': {
      set('type', 'object');
      if (node.properties.length) {
        const props: Record<string, unknown> = {};
        for (const p of node.properties) setOwn(props, p.name, arbitrarySchema(p.schema));
        set('properties', props);
      }
      if (node.preserveUnknownFields) set('x-kubernetes-preserve-unknown-fields', true);
      break;
    }
    case 'map':
      set('type', 'object');
      set('additionalProperties', arbitrarySchema(node.values));
      break;
    case 'array':
      set('type', 'array');
      set('items', arbitrarySchema(node.items));
      break;
    case 'string':
      set('type', 'string');
      if (node.enum) set('enum', [...node.enum]);
      if (node.format !== undefined) set('format', node.format);
      if (node.maxLength !== undefined) set('maxLength', node.maxLength);
      break;
    case 'integer':
    case 'number':
      set('type', node.type);
      if (node.enum) set('enum', [...node.enum]);
      if (node.minimum !== undefined) set('minimum', node.minimum);
      if (node.maximum !== undefined) set('maximum', node.maximum);
      break;
    case 'boolean':
      set('type', 'boolean');
      break;
    case 'int-or-string':
      set('x-kubernetes-int-or-string', true);
      break;
    case 'unknown':
      if (node.object) set('type', 'object');
      set('x-kubernetes-preserve-unknown-fields', true);
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Files.

/**
 * Where generated code imports crdgen/testing from, given the runtime import: `crdgen/runtime`
 * → `crdgen/testing`; a path to the runtime's `index.js` (tests, the demo) → the testing
 * `index.js` beside it.
 */
export function testingImport(runtimeImport: string): string {
  const m = /^(.*\/)runtime\/index\.(m?js|ts)$/.exec(runtimeImport);
  if (m) return `${m[1]}testing/index.${m[2]}`;
  if (/\/runtime\/?$/.test(runtimeImport)) return runtimeImport.replace(/\/runtime\/?$/, '/testing');
  return 'crdgen/testing';
}

/** The YAML text of `docs` (separated by `---`), as the CRD emitter writes YAML (1.1 quoting, no folding). */
function renderYamlDocs(header: string, docs: readonly Record<string, unknown>[]): string {
  const { Document } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return (
    header +
    docs
      .map(
        (d) =>
          `---\n${new Document(d, { version: '1.1', aliasDuplicateObjects: false }).toString({ lineWidth: 0, indentSeq: true })}`,
      )
      .join('')
  );
}

/** A version's type alias in files that import several: `DatabaseManagerV1alpha1`. */
function versionType(ow: OperatorWebhooks, v: ConversionVersion): string {
  return v.served ? `${ow.ck.names.type}${publicName(v.version)}` : 'KubeObject';
}

/** `v1alpha1ToV1` / `v1ToV1alpha1`: the user's functions (safe identifiers: versions are DNS labels). */
function fnName(from: string, to: string): string {
  return `${privateName(from)}To${publicName(to)}`;
}

/**
 * `head(args…, { members })tail` at `indent` spaces as prettier prints it: the last argument, an
 * object, hugged (`head(a, {` … `})`) when that first line fits, else every argument on its own
 * line and the object flat.
 */
function huggedCall(
  indent: number,
  head: string,
  args: readonly string[],
  members: readonly string[],
  tail: string,
): string {
  const pad = ' '.repeat(indent);
  const first = `${head}(${[...args, '{'].join(', ')}`;
  if (fitsLine(indent, first))
    return `${pad}${first}\n${members.map((m) => `${pad}  ${m},\n`).join('')}${pad}})${tail}`;
  return callLine(indent, head, [...args, `{ ${members.join(', ')} }`], tail);
}

/** `head([item])tail` at `indent` spaces: one line when it fits, else the array broken. */
function singleItemCall(indent: number, head: string, item: string, tail: string): string {
  const pad = ' '.repeat(indent);
  return fitsLine(indent, `${head}[${item}])${tail}`)
    ? `${pad}${head}[${item}])${tail}`
    : `${pad}${head}[\n${pad}  ${item},\n${pad}])${tail}`;
}

/** `prefix<value literal>suffix` laid out at its column (schemaLiteral). */
function literalAt(value: unknown, prefix: string, suffix: string): AtColumn {
  return atColumn((w) => ' '.repeat(w) + schemaLiteral(value, w, prefix, suffix));
}

function webhookFiles(model: Model, ctx: EmitContext, ow: OperatorWebhooks): GeneratedFile[] {
  const { ck, group, hub, names } = ow;
  const n = ck.names;
  const base = `controllers/${names.dir}`;
  const header = generatedHeader(ctx.sources);
  const api = (version: string, file: string): string => apiFilePath(group.name, version, file);
  const runtime = ctx.runtimeImport;
  const lowerType = privateName(n.type);
  const conversionConst = `${lowerType}Conversion`;
  const files: GeneratedFile[] = [];

  // webhooks.ts
  const webhooksPath = `${base}/webhooks.ts`;
  const hubValidation = api(hub, 'validation.ts');
  const imports = new ImportTracker(['webhookPaths', 'admissionKind', 'setupWebhooks', 'webhookCertificates']);
  imports.use(runtime, 'defaultingHandler');
  imports.use(runtime, 'validatingHandler');
  imports.use(runtime, 'WebhookCertificateTargets', { type: true });
  imports.use(runtime, 'WebhookServer', { type: true });
  imports.use(importPath(webhooksPath, api(hub, 'types.ts')), n.type, { type: true });
  const validation = importPath(webhooksPath, hubValidation);
  imports.use(validation, `default${n.type}`, { as: 'schemaDefaults' });
  imports.use(validation, `validate${n.type}`, { as: 'schemaValidate' });
  imports.use('./admission.js', `default${n.type}`);
  imports.use('./admission.js', `validate${n.type}`);
  if (ow.converts) imports.use('./conversion.generated.js', conversionConst);
  assertUniqueNames(webhooksPath, imports.localNames());
  files.push({
    path: webhooksPath,
    contents: renderCode('webhooks', 'webhooks', {
      header,
      type: n.type,
      imports: importLines(imports),
      mutatePath: atColumn((w) => propertyLine(w, 'mutate', tsString(names.mutatePath))),
      validatePath: atColumn((w) => propertyLine(w, 'validate', tsString(names.validatePath))),
      convertPath: atColumn((w) => propertyLine(w, 'convert', tsString(CONVERT_PATH))),
      mutatePathText: names.mutatePath,
      validatePathText: names.validatePath,
      converts: ow.converts,
      conversionConst,
      defaultHandler: atColumn((w) =>
        huggedCall(w, `defaultingHandler<${n.type}>`, [`default${n.type}`], ['schemaDefaults'], ','),
      ),
      validateHandler: atColumn((w) =>
        huggedCall(
          w,
          `validatingHandler<${n.type}>`,
          [`validate${n.type}`],
          ['kind: admissionKind', 'schemaValidate'],
          ',',
        ),
      ),
      admissionKind: literalAt({ group: group.name, kind: ck.kind.kind }, 'const admissionKind = ', ';'),
      conversionCall: atColumn((w) =>
        singleItemCall(w, 'server.conversion(webhookPaths.convert, ', conversionConst, ';'),
      ),
      kindLiteral: `{ group: ${tsString(group.name)}, kind: ${tsString(ck.kind.kind)} }`,
      certificates: literalAt(
        webhookCertificateTargets(ow),
        'export const webhookCertificates: WebhookCertificateTargets = ',
        ';',
      ),
      validateName: `validate${n.type}`,
      hub,
      hubValidationPath: hubValidation,
    }),
  });

  // admission.ts (the user's)
  const admissionPath = `${base}/admission.ts`;
  const admissionImports = new ImportTracker([`default${n.type}`, `validate${n.type}`]);
  for (const t of ['AdmissionOperation', 'ValidationOutcome']) admissionImports.use(runtime, t, { type: true });
  admissionImports.use(importPath(admissionPath, api(hub, 'types.ts')), n.type, { type: true });
  assertUniqueNames(admissionPath, admissionImports.localNames());
  files.push({
    path: admissionPath,
    userOwned: true,
    contents: renderCode('webhooks', 'admission', {
      type: n.type,
      hub,
      imports: importLines(admissionImports),
      mutatePathText: names.mutatePath,
      validatePathText: names.validatePath,
      hubValidationPath: hubValidation,
      defaultSignature: atColumn((w) =>
        callLine(w, `export function default${n.type}`, [`_${lowerType}: ${n.type}`], ': void {}'),
      ),
      validateSignature: atColumn((w) =>
        callLine(
          w,
          `export function validate${n.type}`,
          [`_${lowerType}: ${n.type}`, `_old: ${n.type} | undefined`, '_operation: AdmissionOperation'],
          ': ValidationOutcome {',
        ),
      ),
    }),
  });

  if (ow.converts) files.push(...conversionFiles(ctx, ow, base, header, conversionConst));
  files.push({ path: `${base}/config/webhooks.yaml`, contents: webhooksYaml(ctx, ow) });
  return files;
}

function conversionFiles(
  ctx: EmitContext,
  ow: OperatorWebhooks,
  base: string,
  header: string,
  conversionConst: string,
): GeneratedFile[] {
  const { ck, group, hub, versions } = ow;
  const n = ck.names;
  const hubV = versions[0];
  const spokes = versions.slice(1);
  /** Each served version's type, under its version's name (`DatabaseManagerV1alpha1`). */
  const useVersionTypes = (imports: ImportTracker, from: string): void => {
    for (const v of versions.filter((x) => x.served))
      imports.use(importPath(from, apiFilePath(group.name, v.version, 'types.ts')), n.type, {
        type: true,
        as: versionType(ow, v),
      });
  };
  const anyUnserved = versions.some((v) => !v.served);

  // conversion.generated.ts
  const genPath = `${base}/conversion.generated.ts`;
  const plans = spokes.map((v) => ({
    v,
    planConst: `${privateName(v.version)}Fields`,
    plan: rootCopyPlan(v.kind, hubV.kind),
  }));
  const hubType = versionType(ow, hubV);
  const apiVersion = (v: string): string => tsString(`${group.name}/${v}`);
  const genImports = new ImportTracker([conversionConst, 'convertFields', ...plans.map((p) => p.planConst)]);
  genImports.use(ctx.runtimeImport, 'copyFields');
  for (const t of ['CopyPlan', 'HubAndSpoke', 'KubeObject']) genImports.use(ctx.runtimeImport, t, { type: true });
  useVersionTypes(genImports, genPath);
  genImports.useNamespace('./conversion.js', 'custom');
  assertUniqueNames(genPath, genImports.localNames());
  const generated = renderCode('webhooks', 'conversion-generated', {
    header,
    type: n.type,
    hub,
    group: group.name,
    imports: importLines(genImports),
    plans: plans.map(({ v, planConst, plan }) => ({
      version: v.version,
      code: literalAt(plan, `const ${planConst}: CopyPlan = `, ';'),
    })),
    conversionConst,
    groupLiteral: tsString(group.name),
    kindLiteral: tsString(ck.kind.kind),
    hubLiteral: tsString(hub),
    spokes: plans.map(({ v, planConst }) => {
      const spokeType = versionType(ow, v);
      return {
        key: v.version,
        toHub: atColumn((w) =>
          callLine(w, `const hub = convertFields<${hubType}>`, [planConst, 'spoke', apiVersion(hub)], ';'),
        ),
        fromHub: atColumn((w) =>
          callLine(w, `const spoke = convertFields<${spokeType}>`, [planConst, 'hub', apiVersion(v.version)], ';'),
        ),
        toHubCall: atColumn((w) =>
          callLine(w, `custom.${fnName(v.version, hub)}`, [`spoke as ${spokeType}`, 'hub'], ';'),
        ),
        fromHubCall: atColumn((w) =>
          callLine(w, `custom.${fnName(hub, v.version)}`, [`hub as ${hubType}`, 'spoke'], ';'),
        ),
      };
    }),
  });

  // conversion.ts (the user's)
  const userPath = `${base}/conversion.ts`;
  const userImports = new ImportTracker(spokes.flatMap((v) => [fnName(v.version, hub), fnName(hub, v.version)]));
  if (anyUnserved) userImports.use(ctx.runtimeImport, 'KubeObject', { type: true });
  useVersionTypes(userImports, userPath);
  assertUniqueNames(userPath, userImports.localNames());
  const userFn = (doc: string, name: string, params: string[]) => ({
    doc,
    signature: atColumn((w) => callLine(w, `export function ${name}`, params, ': void {}')),
  });
  const user = renderCode('webhooks', 'conversion-user', {
    type: n.type,
    hub,
    group: group.name,
    imports: importLines(userImports),
    functions: spokes.flatMap((v) => [
      userFn(`${v.version} → ${hub} (the hub)`, fnName(v.version, hub), [
        `_${privateName(v.version)}: ${versionType(ow, v)}`,
        `_${privateName(hub)}: ${hubType}`,
      ]),
      userFn(`${hub} (the hub) → ${v.version}`, fnName(hub, v.version), [
        `_${privateName(hub)}: ${hubType}`,
        `_${privateName(v.version)}: ${versionType(ow, v)}`,
      ]),
    ]),
  });

  // conversion.test.ts
  const testPath = `${base}/conversion.test.ts`;
  const schemas: Record<string, unknown> = {};
  for (const v of versions) setOwn(schemas, v.version, arbitrarySchema(v.kind.schema));
  const testImports = new ImportTracker(['schemas']);
  testImports.use('node:test', 'test');
  testImports.use(testingImport(ctx.runtimeImport), 'checkConversionRoundTrip');
  testImports.use('./conversion.generated.js', conversionConst);
  assertUniqueNames(testPath, testImports.localNames());
  const test = renderCode('webhooks', 'conversion-test', {
    header,
    type: n.type,
    versionList: versions.map((v) => v.version).join(', '),
    imports: importLines(testImports),
    schemas: literalAt(schemas, 'const schemas = ', ';'),
    testName: tsString(`${n.type} conversions are lossless: every version through every other and back`),
    check: atColumn((w) =>
      huggedCall(w, 'await checkConversionRoundTrip', [conversionConst], ['schemas', 'numRuns: 100'], ';'),
    ),
  });
  return [
    { path: genPath, contents: generated },
    { path: userPath, contents: user, userOwned: true },
    { path: testPath, contents: test },
  ];
}

function webhooksYaml(ctx: EmitContext, ow: OperatorWebhooks): string {
  const { ck, group, hub, names } = ow;
  const kind = ck.kind;
  const header = `${generatedYamlHeader(ctx.sources)}# The ${ck.names.type} operator's webhooks: the Service in front of the operator's webhook server
# (port 443 → the pods' --webhook-bind-address :9443), the serving certificate from cert-manager
# (a self-signed Issuer; the Secret the manager Deployment mounts at --webhook-cert-dir), and the
# defaulting and validating webhooks of ${group.name}/${hub} (the storage version; matchPolicy
# Equivalent sends requests of the other versions converted). cert-manager's CA injector writes the
# caBundle (cert-manager.io/inject-ca-from). Needs cert-manager and the namespace of config/manager.yaml.
`;
  const injectCa = { 'cert-manager.io/inject-ca-from': `${names.namespace}/${names.certificate}` };
  const clientConfig = (path: string) => ({
    service: { name: names.service, namespace: names.namespace, path, port: 443 },
  });
  const rules = [
    {
      apiGroups: [group.name],
      apiVersions: [hub],
      operations: ['CREATE', 'UPDATE'],
      resources: [kind.plural],
      scope: kind.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
    },
  ];
  const webhook = (name: string, path: string, extra: Record<string, unknown>) => ({
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(path),
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    name,
    ...extra,
    rules,
    sideEffects: 'None',
    timeoutSeconds: 10,
  });
  const labels = { 'app.kubernetes.io/name': names.operator };
  return renderYamlDocs(header, [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: names.service, namespace: names.namespace, labels },
      spec: { ports: [{ name: 'webhook', port: 443, protocol: 'TCP', targetPort: 'webhook' }], selector: labels },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: names.issuer, namespace: names.namespace },
      spec: { selfSigned: {} },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: names.certificate, namespace: names.namespace },
      spec: {
        dnsNames: [`${names.service}.${names.namespace}.svc`, `${names.service}.${names.namespace}.svc.cluster.local`],
        issuerRef: { kind: 'Issuer', name: names.issuer },
        secretName: names.secret,
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { annotations: injectCa, name: names.mutatingConfiguration },
      webhooks: [webhook(names.mutatingWebhook, names.mutatePath, { reinvocationPolicy: 'IfNeeded' })],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { annotations: injectCa, name: names.validatingConfiguration },
      webhooks: [webhook(names.validatingWebhook, names.validatePath, {})],
    },
  ]);
}

/**
 * What `--webhook-cert-mode=self` writes its CA into (the configurations of config/webhooks.yaml,
 * the CRD of config/crd.yaml when it converts) and its default Secret and Service.
 */
export function webhookCertificateTargets(ow: OperatorWebhooks): WebhookCertificateTargets {
  const { names } = ow;
  return {
    secret: names.secret,
    service: names.service,
    mutatingWebhookConfigurations: [names.mutatingConfiguration],
    validatingWebhookConfigurations: [names.validatingConfiguration],
    ...(ow.converts ? { conversionCrds: [`${ow.ck.kind.plural}.${ow.group.name}`] } : {}),
  };
}

/**
 * The RBAC rules `--webhook-cert-mode=self` needs: in the operator's namespace (a Role) the Secret
 * read by every replica and written by one — `create` cannot be limited to a name (RBAC knows no
 * name before the object exists), so it is granted on secrets of the namespace — and cluster-wide
 * (the ClusterRole) its own webhook configurations and CRD read and updated by name.
 */
export function webhookCertificateRbac(ow: OperatorWebhooks): {
  namespaced: { apiGroup: string; resource: string; verbs: string[]; names?: string[] }[];
  cluster: { apiGroup: string; resource: string; verbs: string[]; names?: string[] }[];
} {
  const t = webhookCertificateTargets(ow);
  return {
    namespaced: [
      { apiGroup: '', resource: 'secrets', verbs: ['get', 'update'], names: [t.secret] },
      { apiGroup: '', resource: 'secrets', verbs: ['create'] },
    ],
    cluster: [
      {
        apiGroup: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
        verbs: ['get', 'update'],
        names: [...(t.mutatingWebhookConfigurations ?? [])],
      },
      {
        apiGroup: 'admissionregistration.k8s.io',
        resource: 'validatingwebhookconfigurations',
        verbs: ['get', 'update'],
        names: [...(t.validatingWebhookConfigurations ?? [])],
      },
      ...(t.conversionCrds
        ? [
            {
              apiGroup: 'apiextensions.k8s.io',
              resource: 'customresourcedefinitions',
              verbs: ['get', 'update'],
              names: [...t.conversionCrds],
            },
          ]
        : []),
    ],
  };
}

/**
 * The CRD's `spec.conversion` for a kind with several versions (strategy Webhook, ConversionReview
 * v1, the operator's Service at /convert) and the annotation cert-manager's CA injector reads.
 */
export function crdConversion(ow: OperatorWebhooks): {
  conversion: Record<string, unknown>;
  annotations: Record<string, string>;
} {
  const { names } = ow;
  return {
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: names.service, namespace: names.namespace, path: CONVERT_PATH, port: 443 } },
        conversionReviewVersions: ['v1'],
      },
    },
    annotations: { 'cert-manager.io/inject-ca-from': `${names.namespace}/${names.certificate}` },
  };
}

/**
 * `group` with the conversion stanza and the CA-injection annotation on `kindName`'s CRD (every
 * version's kind shares the CRD facts), for config/crd.yaml of an operator with webhooks.
 */
export function withCrdConversion(group: Group, kindName: string, ow: OperatorWebhooks): Group {
  if (!ow.converts) return group;
  const { conversion, annotations } = crdConversion(ow);
  const patch = (k: Kind): Kind => {
    if (k.kind !== kindName) return k;
    const crd = k.crd ?? {};
    return {
      ...k,
      crd: {
        ...crd,
        annotations: { ...(crd.annotations ?? {}), ...annotations },
        spec: { ...(crd.spec ?? {}), conversion },
      },
    };
  };
  return {
    ...group,
    versions: group.versions.map((v) => ({ ...v, kinds: v.kinds.map(patch) })),
  };
}

/** The webhooks emitter: nothing unless the run has `--webhooks` and `--controller` kinds. */
export const webhooks: Emitter = (model, ctx) => {
  if (!ctx.webhooks) return [];
  const files: GeneratedFile[] = [];
  const seen = new Set<string>();
  for (const selector of ctx.controllers ?? []) {
    const ck = resolveControllerKind(model, ctx, selector);
    if (!emitsGroup(ctx, ck.group.name)) continue;
    const ow = operatorWebhooks(ctx, ck)!;
    if (!isSafePathSegment(ow.names.dir))
      throw new ControllerOptionsError(`--controller ${selector}: unsafe folder name ${JSON.stringify(ow.names.dir)}`);
    if (seen.has(ow.names.dir)) continue;
    seen.add(ow.names.dir);
    files.push(...webhookFiles(model, ctx, ow));
  }
  return files.sort((a, b) => compareStrings(a.path, b.path));
};
