// Output: controllers/<kind>/ for each kind named by `--controller <Kind>` (or config), owning
// the kinds `--owns` names and those of its starter (starters.ts):
//   controller.ts  — `export function setupFooController(manager, options?, reconciler?)`: the builder's
//                    for(Foo).owns(…) with a reconciler that reads the Foo (and, when asked, what it
//                    controls), then calls reconcile.ts's `reconcile(foo, context)` (regenerated)
//   reconcile.ts   — `reconcile(foo, context): Promise<Result>`: the starter's (starters/<name>/), else the
//                    generic hooks to fill in (user-owned, written once)
//   reconcile.test.ts — the user's test of it on crdgen/testing's server (the starter's, else
//                    reconcile-test.ts's: the object is seen, its status untouched; written once)
//   main.ts        — `process.exitCode = await runOperator({ name, setupWithManager })` (flags, leader election, metrics, health)
//   config/        — what deploys it, as kustomize bases (manifests.ts): crd/, rbac/ (role.yaml: the
//                    least-privilege role below), manager/ (manager.yaml), network-policy/, prometheus/,
//                    and default/, the overlay `crdgen manifests` builds (its kustomization.yaml the
//                    user's, written once)
//   Dockerfile     — the operator's image
import type { Group, Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { privateName, tsString } from '../model/naming.js';
import { compareStrings } from '../model/order.js';
import { callLine, chainStatement, importLines } from './layout.js';
import { emitsGroup, type EmitContext, type Emitter, type GeneratedFile } from './emitter.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { assertUniqueNames } from './client-kinds.js';
import {
  controllerPlans,
  hasStatus,
  type ControllerPlan,
  type OwnedKind,
  type PickedStarter,
} from './controller-kinds.js';
import type { StarterFile } from './starters.js';
import { apiFilePath } from './paths.js';
import { crd, generatedYamlHeader } from './crd.js';
import {
  operatorWebhooks,
  testingImport,
  WEBHOOK_CERT_MODE_ARG,
  webhookCertificateRbac,
  withCrdConversion,
  type OperatorWebhooks,
} from './webhooks.js';
import { layoutFiles, type ManifestNames } from './manifests.js';
import { crdBeside, crdConst, crdFromRoot, renderGenericReconcileTest } from './reconcile-test.js';
import { IMAGE_BASES, OPERATOR_NODE_MAJOR, operatorImage } from './operator-image.js';

/** The esbuild release the generated Dockerfile bundles the operator with (the one crdgen's own tests and benchmark use). */
export const OPERATOR_ESBUILD_VERSION = '0.28.2';

/**
 * The banner of the operator bundle: the CommonJS dependencies bundled into the ES module
 * (pino, prom-client) call `require` for Node's built-in modules.
 */
export const OPERATOR_BUNDLE_BANNER =
  "import { createRequire as __crdgenRequire } from 'node:module'; const require = __crdgenRequire(import.meta.url);";

/** `text` as lines of a JSDoc block (` * …`, `first` the start of the first), wrapped at about 95 columns. */
function wrapDoc(first: string, text: string): string {
  return wrapText(text, first, ' * ');
}

/** `a, b and c`. */
function listText(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The exported marker of a `reconcile.ts` whose hooks are the generated stubs: while it is there,
 * the operator warns at start-up and `crdgen generate` reminds the user.
 */
export const STUB_HOOKS_MARKER = 'export const stubHooks = true;';

/** The warning `crdgen generate` prints once for each operator whose reconcile.ts still has the stub hooks. */
export function stubHookWarnings(
  files: readonly GeneratedFile[],
  existing: (path: string) => string | undefined,
  display: (path: string) => string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of files) {
    if (!f.userOwned || !f.contents.includes(STUB_HOOKS_MARKER)) continue;
    const text = existing(f.path) ?? f.contents;
    const at = text.split('\n').findIndex((l) => l.trim() === STUB_HOOKS_MARKER);
    if (at < 0) continue;
    out.push({
      severity: 'warning',
      code: 'GEN005',
      message: `${display(f.path)} still has the generated stub hooks: the operator does nothing (reconcile returns at once) until you fill them in`,
      file: display(f.path),
      line: at + 1,
      col: 1,
      hint: 'write reconcile, then delete `export const stubHooks = true;` (the operator also warns at start-up while it is there)',
    });
  }
  return out;
}

/** The controller emitter: nothing unless `ctx.controllers` names kinds. */
export const controller: Emitter = (model, ctx) =>
  controllerPlans(model, ctx)
    .filter((plan) => emitsGroup(ctx, plan.ck.group.name))
    .flatMap((plan) => controllerFiles(model, ctx, plan))
    .sort((a, b) => compareStrings(a.path, b.path));

/** controller.ts: the builder, the context type and the reconciler that reads the object. */
function renderController(ctx: EmitContext, plan: ControllerPlan, path: string): string {
  const { ck, owns, dir } = plan;
  const n = ck.names;
  const runtime = ctx.runtimeImport;
  const api = (g: string, v: string, file: string): string => importPath(path, apiFilePath(g, v, file));
  const setupName = `setup${n.type}Controller`;
  const declared = ['controllerName', `${n.type}Owned`, `${n.type}Context`, `${n.type}Reconciler`, setupName];
  // a name taken twice is aliased with its module's prefix: Runtime for the runtime's, the
  // group/version's type name (CoolopsV1alpha1) for a kind of the inputs
  const aliasPrefixes: Record<string, string> = { [runtime]: 'Runtime' };
  for (const o of [{ group: ck.group.name, version: ck.version.name, prefix: n.groupVersionType }, ...owns])
    if (o.prefix !== undefined)
      for (const file of ['types.ts', 'register.ts']) aliasPrefixes[api(o.group, o.version, file)] = o.prefix;
  const imports = new ImportTracker(declared, { aliasPrefixes });
  // the kind's names first, then the runtime's, then what it owns: a later name that is taken is aliased
  const type = imports.use(api(ck.group.name, ck.version.name, 'types.ts'), n.type, { type: true });
  const descriptor = imports.use(api(ck.group.name, ck.version.name, 'register.ts'), `${n.type}Resource`);
  // the runtime's names as this file imports them (aliased where a kind's name takes one)
  const names = Object.fromEntries(
    ['Controller', 'ControllerOptions', 'Manager', 'OwnerReference', 'ReconcileContext', 'ReconcileRequest', 'Result']
      .map((t) => [t, imports.use(runtime, t, { type: true })])
      .concat(
        [
          'isNotFound',
          'newControllerManagedBy',
          'newControllerRef',
          ...(owns.length > 0 ? ['controlledObjects'] : []),
        ].map((v) => [v, imports.use(runtime, v)]),
      ),
  ) as Record<string, string>;
  const owned = owns.map((o) => {
    const module = (file: string): string => (o.source.runtime ? runtime : api(o.group, o.version, file));
    return {
      ...o,
      type: o.metadataOnly
        ? imports.use(runtime, 'PartialObjectMetadata', { type: true })
        : imports.use(module('types.ts'), o.source.type, { type: true }),
      descriptor: imports.use(module('register.ts'), o.source.descriptor),
    };
  });
  // a kind read as metadata only: its informer holds PartialObjectMetadata, with managedFields
  // (what createOrUpdate judges it by; the scope is set before the informer exists)
  const ownsCall = (o: (typeof owned)[number]): string =>
    o.metadataOnly ? `owns(${o.descriptor}, { metadataOnly: true })` : `owns(${o.descriptor})`;
  const hooks = imports.useNamespace('./reconcile.js', 'hooks');
  assertUniqueNames(path, imports.localNames());
  const builderCalls = [
    'named(controllerName)',
    `for(${descriptor})`,
    ...owned.map(ownsCall),
    'withOptions(options)',
    'complete(reconcileOne)',
  ];
  const builderDoc = `\`for(${descriptor})\`${owned.map((o) => `, \`owns(${o.descriptor})\`${o.metadataOnly ? ' (metadata only)' : ''}`).join('')}`;
  return renderCode('controller', 'controller', {
    header: generatedHeader(ctx.sources),
    imports: importLines(imports),
    type,
    pluralType: n.plural,
    names,
    hooks,
    controllerName: tsString(`${dir}-controller`),
    reconcileFile: tsString(`controllers/${dir}/reconcile.ts`),
    keepManagedFields: owned
      .filter((o) => o.metadataOnly)
      .map((o) => ({
        descriptor: o.descriptor,
        line: atColumn((w) => callLine(w, 'manager.scope', [o.descriptor, '{ keepManagedFields: true }'], ';')),
      })),
    owned: owned.map((o) => ({
      selector: o.selector,
      kind: o.kind,
      field: o.field,
      type: o.type,
      descriptor: o.descriptor,
      informer: atColumn((w) =>
        callLine(
          w,
          `${o.field}: manager.informer`,
          o.metadataOnly ? [o.descriptor, '{ metadataOnly: true }'] : [o.descriptor],
          ',',
        ),
      ),
      what: o.metadataOnly ? `${o.kind} objects' metadata (the reconciler reads no more of them)` : `${o.kind} objects`,
      value: atColumn((w) =>
        callLine(w, `${o.field}: ${names['controlledObjects']}`, [`informers.${o.field}`, 'obj'], ','),
      ),
    })),
    reconcilerType: atColumn((w) =>
      callLine(
        w,
        `export type ${n.type}Reconciler = `,
        [`${privateName(n.type)}: ${type}`, `context: ${n.type}Context`],
        ` => Promise<${names['Result']} | void>;`,
      ),
    ),
    builderDoc: wrapDoc(' *', builderDoc).replace(/^ \* /, ''),
    setupSignature: atColumn((w) =>
      callLine(
        w,
        `export function ${setupName}`,
        [
          `manager: ${names['Manager']}`,
          `options: ${names['ControllerOptions']} = {}`,
          `reconciler: ${n.type}Reconciler = ${hooks}.reconcile`,
        ],
        `: ${names['Controller']} {`,
      ),
    ),
    reconcileSignature: atColumn((w) =>
      callLine(
        w,
        'const reconcileOne = async ',
        [`request: ${names['ReconcileRequest']}`, `context: ${names['ReconcileContext']}`],
        `: Promise<${names['Result']} | void> => {`,
      ),
    ),
    builderStatement: atColumn((w) =>
      chainStatement(w, 'return ', `${names['newControllerManagedBy']}(manager)`, builderCalls),
    ),
    getObject: atColumn((w) => callLine(w, 'obj = await context.client.get', [descriptor, 'request'], ';')),
    ownerReferenceLine: atColumn((w) =>
      callLine(w, `const ownerReference = ${names['newControllerRef']}`, ['obj', descriptor], ';'),
    ),
  });
}

/** The generic reconcile.ts: the hooks to fill in, marked as the stub. */
function renderGenericReconcile(ctx: EmitContext, plan: ControllerPlan, path: string): string {
  const { ck, owns } = plan;
  const n = ck.names;
  const imports = new ImportTracker([], { aliasPrefixes: { [ctx.runtimeImport]: 'Runtime' } });
  const type = imports.use(importPath(path, apiFilePath(ck.group.name, ck.version.name, 'types.ts')), n.type, {
    type: true,
  });
  const result = imports.use(ctx.runtimeImport, 'Result', { type: true });
  const context = imports.use('./controller.js', `${n.type}Context`, { type: true });
  assertUniqueNames(path, imports.localNames());
  const ownedDoc =
    owns.length === 0
      ? ' * - It owns nothing yet: name the kinds it creates with `--owns` (e.g. apps/v1/Deployment),\n *   and `context.owned` lists the ones it controls.'
      : wrapDoc(
          ' * -',
          `\`context.owned\` lists what it controls now (${listText(owns.map((o) => `\`${o.field}\``))}), from the cache.`,
        );
  return renderCode('controller', 'reconcile-generic', {
    type: n.type,
    imports: importLines(imports),
    stubMarker: STUB_HOOKS_MARKER,
    ownedDoc: ownedDoc.replace(/\n \* (?!-)/g, '\n *   '),
    reconcileSignature: atColumn((w) =>
      callLine(
        w,
        'export async function reconcile',
        [`_${privateName(n.type)}: ${type}`, `_context: ${context}`],
        `: Promise<${result}> {`,
      ),
    ),
  });
}

/**
 * A file of the operator's starter: its template with the starter's imports (those whose field
 * the kind has) and which of the manifest's fields the kind has.
 */
function renderStarterFile(
  ctx: EmitContext,
  ck: ControllerPlan['ck'],
  starter: PickedStarter,
  file: StarterFile,
  path: string,
): string {
  const n = ck.names;
  const modules: Record<Exclude<StarterFile['imports'][number]['from'], `node:${string}`>, string> = {
    runtime: ctx.runtimeImport,
    testing: testingImport(ctx.runtimeImport),
    types: importPath(path, apiFilePath(ck.group.name, ck.version.name, 'types.ts')),
    register: importPath(path, apiFilePath(ck.group.name, ck.version.name, 'register.ts')),
    controller: './controller.js',
    reconcile: './reconcile.js',
  };
  // the template writes the names as they are: a name imported twice is a collision, reported
  const imports = new ImportTracker();
  const named = (name: string): string => name.replaceAll('{type}', n.type);
  const use = (from: StarterFile['imports'][number]['from'], name: string, type: boolean): void => {
    const [imported, local] = named(name).split(' as ');
    const module = from.startsWith('node:') ? from : modules[from as keyof typeof modules];
    imports.use(module, imported, { type, ...(local !== undefined ? { as: local } : {}) });
  };
  for (const i of file.imports) {
    if (i.if !== undefined && !starter.fields[i.if]) continue;
    for (const name of i.names ?? []) use(i.from, name, false);
    for (const name of i.types ?? []) use(i.from, name, true);
  }
  assertUniqueNames(path, imports.localNames());
  const beside = crdBeside(ck);
  const crdPath = crdFromRoot(dockerOutDir(ctx.outDir), dirOf(path), beside);
  return renderCode(`starters/${starter.manifest.name}`, file.template, {
    type: n.type,
    lowerType: privateName(n.type),
    pluralType: n.plural,
    imports: importLines(imports),
    fields: starter.fields,
    statusWrite: ck.kind.subresources.status ? 'updateStatus' : 'update',
    // for a test: the kind's apiVersion and kind, where its CRD is from the project's root
    apiVersionText: tsString(ck.group.name === '' ? ck.version.name : `${ck.group.name}/${ck.version.name}`),
    kindText: tsString(ck.kind.kind),
    namespaced: ck.kind.scope === 'Namespaced',
    crdConst: crdConst('CRD_FROM_ROOT', crdPath),
    crdBeside: crdConst('CRD_BESIDE', beside),
  });
}

/** `controllers/<dir>/…` → `<dir>`. */
function dirOf(path: string): string {
  return path.split('/')[1] ?? '';
}

function controllerFiles(model: Model, ctx: EmitContext, plan: ControllerPlan): GeneratedFile[] {
  const { ck, dir } = plan;
  const n = ck.names;
  const base = `controllers/${dir}`;
  const files: GeneratedFile[] = [
    { path: `${base}/controller.ts`, contents: renderController(ctx, plan, `${base}/controller.ts`) },
  ];
  const { starter } = plan;
  if (starter) {
    for (const file of starter.manifest.files) {
      const path = `${base}/${file.path}`;
      files.push({ path, contents: renderStarterFile(ctx, ck, starter, file, path), userOwned: true });
    }
  } else {
    const path = `${base}/reconcile.ts`;
    files.push({ path, contents: renderGenericReconcile(ctx, plan, path), userOwned: true });
    const testPath = `${base}/reconcile.test.ts`;
    files.push({
      path: testPath,
      contents: renderGenericReconcileTest(ctx, plan, testPath, dockerOutDir(ctx.outDir)),
      userOwned: true,
    });
  }
  const hooks = operatorWebhooks(ctx, ck); // --webhooks (webhooks.ts): main.ts, the manager and the CRD change
  const setupName = `setup${n.type}Controller`;
  const mainImports = new ImportTracker();
  mainImports.use(ctx.runtimeImport, 'runOperator');
  mainImports.use('./controller.js', 'controllerName');
  mainImports.use('./controller.js', setupName);
  if (hooks) {
    mainImports.use('./webhooks.js', 'setupWebhooks');
    mainImports.use('./webhooks.js', 'webhookCertificates');
  }
  files.push({
    path: `${base}/main.ts`,
    contents: render('controller', 'main', {
      header: generatedHeader(ctx.sources),
      type: n.type,
      imports: importLines(mainImports),
      setupName,
      webhooks: hooks !== undefined,
    }),
  });
  files.push(
    ...configFiles(model, ctx, hooks ? withCrdConversion(ck.group, ck.kind.kind, hooks) : ck.group, plan, hooks),
  );
  return files;
}

/** Where docs/operator.md has the generated tree: the Dockerfile's default when `--out` is not known or not usable. */
export const DOCUMENTED_OUT_DIR = 'src/generated';

/**
 * The output folder as the Dockerfile names it, relative to the build context (the project
 * root): `ctx.outDir` when it is a plain relative path inside the project, else the documented
 * `src/generated`.
 */
export function dockerOutDir(outDir: string | undefined): string {
  if (outDir === undefined) return DOCUMENTED_OUT_DIR;
  const p = outDir.replace(/\/+$/, '');
  if (
    !/^[A-Za-z0-9._/-]+$/.test(p) ||
    p.startsWith('/') ||
    p.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')
  )
    return DOCUMENTED_OUT_DIR;
  return p;
}

/** Every verb a reconciler may need on an owned kind it writes itself (kubebuilder's default). */
const OWNED_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/**
 * What the operator itself does with its kind: its informer lists and watches it (no get: every
 * read of the reconciler is from that cache, and a role with no more than it needs is proven on
 * kube-apiserver by test/e2e/install-rbac.test.ts).
 */
const OPERATOR_VERBS = ['list', 'watch'];

/** A sharded operator also patches its kind: the sharder sets the shard labels, a shard removes them. */
const SHARDED_OPERATOR_VERBS = [...OPERATOR_VERBS, 'patch'];

/** The leader-election Lease: read, watched by a standby, created, renewed (and released by an update). */
const LEASE_VERBS = ['get', 'watch', 'create', 'update'];

/**
 * Sharded: each shard's Lease and the sharder's are held as the leader-election one; the sharder
 * lists and watches the shard Leases, takes an expired one (update) and deletes a dead one.
 */
const SHARDED_LEASE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'delete'];

/** Replicas of a sharded operator in config/manager/manager.yaml: each reconciles a third of the objects. */
const SHARDED_REPLICAS = 3;

/** What the generic reconcile.ts is granted on its kind, as kubebuilder grants it. */
const GENERIC_VERBS = { kind: ['get', 'update', 'patch'], status: ['update', 'patch'], finalizers: ['update'] };

/** `verbs` in kubebuilder's order (get, list, watch, create, update, patch, delete). */
function inVerbOrder(verbs: readonly string[]): string[] {
  const rank = (v: string): number => (OWNED_VERBS.includes(v) ? OWNED_VERBS.indexOf(v) : OWNED_VERBS.length);
  return [...verbs].sort((a, b) => rank(a) - rank(b));
}

/** `a` then what `b` adds. */
function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** `text` wrapped at about 95 columns: the first line starts with `first`, the others with `next`. */
function wrapText(text: string, first: string, next: string): string {
  const lines: string[] = [];
  let cur = first.trimEnd();
  for (const word of text.split(' ')) {
    if (cur.length + 1 + word.length > 95 && cur.trim() !== first.trim()) {
      lines.push(cur);
      cur = `${next}${word}`;
    } else cur = cur === '' ? word : `${cur} ${word}`;
  }
  lines.push(cur);
  return lines.join('\n');
}

/**
 * The ClusterRole's rules and the comment above them: what the operator itself needs, what its
 * reconcile.ts needs — the starter's manifest says it, the generic hooks get kubebuilder's
 * defaults — and every verb on the kinds of `--owns`. The comment says where each comes from.
 */
function rbac(
  plan: ControllerPlan,
  sharded: boolean,
  hooks: OperatorWebhooks | undefined,
): { comment: string; rules: string; leaseVerbs: string; roleRules: string } {
  const { ck, owns, starter } = plan;
  const kind = ck.kind;
  const rule = (apiGroup: string, resource: string, verbs: readonly string[], names?: readonly string[]): string =>
    `  - apiGroups: [${apiGroup}]\n    resources: [${resource}]\n` +
    (names ? `    resourceNames: [${names.map((n) => JSON.stringify(n)).join(', ')}]\n` : '') +
    `    verbs: [${verbs.join(', ')}]`;
  const certRules = hooks ? webhookCertificateRbac(hooks) : undefined;
  const certRule = (r: { apiGroup: string; resource: string; verbs: string[]; names?: string[] }): string =>
    rule(r.apiGroup === '' ? '""' : r.apiGroup, r.resource, r.verbs, r.names);
  const group = JSON.stringify(ck.group.name);
  const wants = starter
    ? {
        kind: starter.manifest.rbac.kind,
        status: hasStatus(kind) ? starter.manifest.rbac.status : [],
        finalizers: starter.manifest.rbac.finalizers ?? [],
      }
    : GENERIC_VERBS;
  const subresource = kind.subresources.status;
  // without a status subresource the status is written through the object itself
  // sharded: the sharder labels the kind's objects and a shard removes its labels to let one go (merge patches)
  const operatorVerbs = sharded ? SHARDED_OPERATOR_VERBS : OPERATOR_VERBS;
  const onKind = union(wants.kind, subresource ? [] : wants.status).filter((v) => !operatorVerbs.includes(v));
  const onStatus = subresource ? wants.status : [];
  // a kind cached as metadata only is read whole (get) when its metadata says it changed; sharded,
  // the sharder labels what an object controls when it moves the object (patch), and an owner
  // that reaches the new shard's cache before what it owns (separate watches) finds it outside
  // its cache: createOrUpdate's create is AlreadyExists and it reads the object from the API (get)
  const verbsOf = (o: OwnedKind): string[] =>
    o.from === '--owns'
      ? OWNED_VERBS
      : union(
          union(starter?.manifest.rbac.owns ?? OWNED_VERBS, o.metadataOnly || sharded ? ['get'] : []),
          sharded ? ['patch'] : [],
        );
  const rules = [
    rule(group, kind.plural, inVerbOrder(union(operatorVerbs, onKind))),
    ...(onStatus.length > 0 ? [rule(group, `${kind.plural}/status`, onStatus)] : []),
    ...(wants.finalizers.length > 0 ? [rule(group, `${kind.plural}/finalizers`, wants.finalizers)] : []),
    ...owns.map((o) =>
      rule(o.source.runtime ? (o.group === '' ? '""' : o.group) : JSON.stringify(o.group), o.resource, verbsOf(o)),
    ),
    rule('""', 'events', ['create', 'patch']),
    ...(certRules?.cluster.map(certRule) ?? []),
  ];
  const fromOwns = owns.filter((o) => o.from === '--owns').map((o) => o.resource);
  const fromStarter = owns.filter((o) => o.from !== '--owns');
  const items = [
    sharded
      ? `the operator, sharded: ${kind.plural} read (its informer lists and watches them) and patched (the sharder sets their shard labels, a shard removes them to let one go); Events created and patched (repeats aggregated); the Leases of its namespace (the Role below): each shard's and the sharder's read, created and renewed, the shards' listed and watched by the sharder, an expired one taken (updated) and a dead one deleted;`
      : `the operator: ${kind.plural} read (its informer lists and watches them); Events created and patched (repeats aggregated); the leader-election Lease read, created and renewed (the Role below);`,
  ];
  if (starter) {
    const grants = [
      ...(onKind.length > 0 ? [`${kind.plural} ${onKind.join(', ')}`] : []),
      ...(onStatus.length > 0 ? [`${kind.plural}/status ${onStatus.join(', ')}`] : []),
      ...(wants.finalizers.length > 0
        ? [
            `${kind.plural}/finalizers ${wants.finalizers.join(', ')} (its owner references set blockOwnerDeletion: where the OwnerReferencesPermissionEnforcement admission plugin is on, that needs it)`,
          ]
        : []),
      ...(fromStarter.length > 0
        ? [`${listText(fromStarter.map((o) => o.resource))} ${starter.manifest.rbac.owns.join(', ')}`]
        : []),
    ];
    const metadataOnly = fromStarter.filter((o) => o.metadataOnly).map((o) => o.resource);
    const movedIn = sharded
      ? fromStarter.filter((o) => !o.metadataOnly && !starter.manifest.rbac.owns.includes('get')).map((o) => o.resource)
      : [];
    if (movedIn.length > 0)
      grants.push(
        `${listText(movedIn)} also get (sharded: an object that moved in may reach its new shard's cache before what it owns, and createOrUpdate then reads that from the API)`,
      );
    const patchedBySharder =
      sharded && !starter.manifest.rbac.owns.includes('patch') ? fromStarter.map((o) => o.resource) : [];
    if (patchedBySharder.length > 0)
      grants.push(
        `${listText(patchedBySharder)} also patch (sharded: the sharder labels what an object controls for the object's shard when it moves it)`,
      );
    if (metadataOnly.length > 0)
      grants.push(
        `${listText(metadataOnly)} also get (cached as metadata only: createOrUpdate reads one whole when its metadata says it changed)`,
      );
    const name = starter.manifest.name;
    items.push(`reconcile.ts of the ${name} starter, as starters/${name}/starter.json declares: ${grants.join('; ')};`);
  } else
    items.push(
      `reconcile.ts, the generic hooks: ${kind.plural} updated and patched, their status written, their finalizers updated (owner references with blockOwnerDeletion need that), as kubebuilder grants them;`,
    );
  if (fromOwns.length > 0) items.push(`--owns: every verb on ${listText(fromOwns)}, as kubebuilder grants them;`);
  if (hooks)
    items.push(
      `--webhook-cert-mode=self (the webhooks' certificate kept by the operator): its Secret ${hooks.names.secret} read and updated and secrets of its namespace created (RBAC cannot limit create to a name), its webhook configurations${hooks.converts ? ' and its CRD' : ''} read and updated by name (the CA bundle), the writer's Lease in the Role's leases; with cert-manager (--webhook-cert-dir) none of these is needed;`,
    );
  const comment = [
    `# RBAC of the ${ck.names.type} operator, from what asks for it:`,
    ...items.map((t, i) => wrapText(i === items.length - 1 ? t.replace(/;$/, '.') : t, '# - ', '#   ')),
    '# reconcile.ts is yours: narrow what it is granted to what it does.',
  ];
  return {
    comment: comment.join('\n'),
    rules: rules.join('\n'),
    leaseVerbs: (sharded ? SHARDED_LEASE_VERBS : LEASE_VERBS).join(', '),
    roleRules: certRules ? certRules.namespaced.map(certRule).join('\n') : '',
  };
}

function configFiles(
  model: Model,
  ctx: EmitContext,
  group: Group,
  plan: ControllerPlan,
  hooks?: OperatorWebhooks,
): GeneratedFile[] {
  const { ck, dir } = plan;
  const base = `controllers/${dir}`;
  const yamlHeader = generatedYamlHeader(ctx.sources);
  const name = `${dir}-operator`;
  const namespace = `${dir}-system`;
  const kind = ck.kind;
  const crdFile = crd(
    {
      ...model,
      groups: [
        {
          ...group,
          versions: group.versions
            .filter((v) => v.kinds.some((k) => k.kind === kind.kind))
            .map((v) => ({ ...v, kinds: v.kinds.filter((k) => k.kind === kind.kind) })),
        },
      ],
    },
    ctx,
  );
  const common = { yamlHeader, type: ck.names.type, name, namespace };
  const dockerfilePath = `${base}/Dockerfile`;
  const outDir = dockerOutDir(ctx.outDir);
  // the CRD under the crd emitter's name for it (config/crd/<plural>.<group>.yaml)
  const crdName = crdFile[0].path.split('/').at(-1)!;
  const names: ManifestNames = {
    type: ck.names.type,
    dir,
    name,
    namespace,
    group: ck.group.name,
    plural: kind.plural,
    status: kind.subresources.status,
  };
  return [
    { path: `${base}/config/crd/${crdName}`, contents: crdFile[0].contents },
    {
      path: `${base}/config/rbac/role.yaml`,
      contents: render('controller', 'rbac', { ...common, ...rbac(plan, ctx.sharding === true, hooks) }),
    },
    {
      path: `${base}/config/manager/manager.yaml`,
      contents: render('controller', 'manager', {
        ...common,
        webhooks: hooks ? { certModeArg: WEBHOOK_CERT_MODE_ARG } : undefined,
        ...(ctx.sharding ? { sharded: { replicas: SHARDED_REPLICAS } } : {}),
      }),
    },
    ...layoutFiles(base, yamlHeader, names, crdName, hooks !== undefined),
    {
      path: dockerfilePath,
      contents: render('controller', 'dockerfile', {
        ...common,
        dir,
        outDir,
        mainTs: `${outDir}/${base}/main.ts`,
        dockerfilePath: `${outDir}/${dockerfilePath}`,
        esbuildVersion: OPERATOR_ESBUILD_VERSION,
        bundleBanner: OPERATOR_BUNDLE_BANNER,
        image: operatorImage(ctx.imageBase),
        distroless: IMAGE_BASES['distroless'],
        nodeMajor: OPERATOR_NODE_MAJOR,
      }),
    },
  ];
}
