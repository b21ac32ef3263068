// Output: controllers/<kind>/ for each kind named by `--controller <Kind>` (or config), owning
// the kinds `--owns` names (the DatabaseManager shape: its Deployment and Service, and those):
//   controller.ts  — `export function setupFooController(manager, options?, reconciler?)`: the builder's
//                    for(Foo).owns(…) with a reconciler that reads the Foo and what it controls,
//                    then calls reconcile.ts's `reconcile(foo, context)` (regenerated)
//   reconcile.ts   — `export async function reconcile(foo, context): Promise<Result>` (user-owned, written once)
//   main.ts        — `process.exitCode = await runOperator({ name, setupWithManager })` (flags, leader election, metrics, health)
//   config/crd.yaml, config/rbac.yaml, config/manager.yaml, Dockerfile — what deploys it
import type { Group, Kind, Model, SchemaNode } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { isSafePathSegment, pluralName, privateName, tsString } from '../model/naming.js';
import { callLine, importDecl } from './layout.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { clientKinds, type ClientKind } from './client-kinds.js';
import { apiFilePath, groupFolder } from './paths.js';
import { BUILTIN_OWNABLE } from './builtin-kinds.js';
import { crd, generatedYamlHeader } from './crd.js';
import { compareStrings } from '../emit/sorted.js';
import { operatorWebhooks, withCrdConversion, type OperatorWebhooks } from './webhooks.js';

/** The esbuild release the generated Dockerfile bundles the operator with (the one crdgen's own tests and benchmark use). */
export const OPERATOR_ESBUILD_VERSION = '0.28.2';

/**
 * The banner of the operator bundle: the CommonJS dependencies bundled into the ES module
 * (pino, prom-client) call `require` for Node's built-in modules.
 */
export const OPERATOR_BUNDLE_BANNER =
  "import { createRequire as __crdgenRequire } from 'node:module'; const require = __crdgenRequire(import.meta.url);";

/** A bad `--controller` selection (unknown or ambiguous kind, missing client verbs); the message is for the user. */
export class ControllerOptionsError extends Error {
  override name = 'ControllerOptionsError';
}

/** The client kind a `--controller` entry names: `Kind` or `group/Kind`; the storage version, else the first served. */
export function resolveControllerKind(model: Model, ctx: EmitContext, selector: string): ClientKind {
  const slash = selector.lastIndexOf('/');
  const group = slash >= 0 ? selector.slice(0, slash) : undefined;
  const kind = slash >= 0 ? selector.slice(slash + 1) : selector;
  const all = clientKinds(model, ctx.client, true).flatMap((gv) => gv.kinds);
  const matches = all.filter((ck) => ck.kind.kind === kind && (group === undefined || ck.group.name === group));
  const groups = [...new Set(matches.map((ck) => ck.group.name))];
  if (groups.length === 0) {
    const known = [...new Set(all.map((ck) => ck.kind.kind))].sort(compareStrings);
    throw new ControllerOptionsError(
      `--controller ${selector}: no such kind; known kinds: ${known.join(', ') || '(none)'}`,
    );
  }
  if (groups.length > 1)
    throw new ControllerOptionsError(
      `--controller ${selector}: kind ${kind} is in several groups (${groups.join(', ')}); write <group>/${kind}`,
    );
  const chosen = matches.find((ck) => ck.kind.storage) ?? matches[0];
  const statusVerb = chosen.kind.subresources.status ? 'updateStatus' : 'update';
  const needed = ['get', 'list', 'watch', ...(hasStatus(chosen.kind) ? [statusVerb] : [])];
  const missing = needed.filter((v) => !(chosen.verbs as string[]).includes(v));
  if (missing.length > 0)
    throw new ControllerOptionsError(
      `--controller ${selector}: the controller needs the client verbs ${missing.join(', ')} of ${kind}, which the client options remove`,
    );
  return chosen;
}

/** Every problem with `ctx.controllers` and `ctx.owns` (empty when fine). */
export function controllerErrors(model: Model, ctx: EmitContext): string[] {
  const out: string[] = [];
  if ((ctx.owns ?? []).length > 0 && (ctx.controllers ?? []).length === 0)
    out.push('--owns names what a controller owns: give --controller <Kind> too');
  for (const s of ctx.controllers ?? []) {
    try {
      resolveOwnedKinds(model, ctx, resolveControllerKind(model, ctx, s));
    } catch (e) {
      if (!(e instanceof ControllerOptionsError)) throw e;
      out.push(e.message);
    }
  }
  return out;
}

function objectProps(node: SchemaNode | undefined): Map<string, SchemaNode> {
  return new Map(node?.type === 'object' ? node.properties.map((p) => [p.name, p.schema]) : []);
}

function hasStatus(kind: Kind): boolean {
  return objectProps(kind.schema).has('status');
}

/**
 * True for the DatabaseManager *spec* shape — spec.deploymentName and spec.dbtype strings,
 * spec.replicas an integer — as the article's CRD has it. Such kinds get the worked example's
 * business logic (whatever their status declares: see {@link databaseManagerStatus}); others
 * the hooks to fill in.
 */
export function isDatabaseManagerShape(kind: Kind): boolean {
  const spec = objectProps(objectProps(kind.schema).get('spec'));
  return (
    spec.get('deploymentName')?.type === 'string' &&
    spec.get('dbtype')?.type === 'string' &&
    spec.get('replicas')?.type === 'integer'
  );
}

/**
 * What the DatabaseManager logic writes into a kind's status: exactly the fields its status
 * schema declares (a field the schema does not declare would be pruned by the API server, and
 * the controller would write it again on every reconcile). `conditions` is managed (a `Ready`
 * condition) only when its items have metav1.Condition's fields (type, status, reason, message,
 * lastTransitionTime), require type and status, and require no other. Undefined when the kind has no status.
 */
export interface DatabaseManagerStatus {
  availableReplicas: boolean;
  observedGeneration: boolean;
  /** The Ready condition, and whether its items declare observedGeneration. */
  conditions: false | { observedGeneration: boolean };
}

const CONDITION_FIELDS = ['type', 'status', 'reason', 'message', 'lastTransitionTime'];

/** See {@link DatabaseManagerStatus}. */
export function databaseManagerStatus(kind: Kind): DatabaseManagerStatus | undefined {
  const statusNode = objectProps(kind.schema).get('status');
  if (!statusNode) return undefined;
  const status = objectProps(statusNode);
  const conditionsNode = status.get('conditions');
  let conditions: DatabaseManagerStatus['conditions'] = false;
  if (conditionsNode?.type === 'array' && conditionsNode.items.type === 'object') {
    const item = conditionsNode.items;
    const props = objectProps(item);
    const strings = CONDITION_FIELDS.every((f) => props.get(f)?.type === 'string');
    const required = new Set(item.properties.filter((p) => p.required).map((p) => p.name));
    const statusEnum = (props.get('status') as { enum?: string[] } | undefined)?.enum;
    const statusOk = statusEnum === undefined || (statusEnum.includes('True') && statusEnum.includes('False'));
    const generation = props.get('observedGeneration');
    const generationOk = generation === undefined || generation.type === 'integer';
    const known = new Set([...CONDITION_FIELDS, 'observedGeneration']);
    const requiresOnlyKnown = item.properties.every((p) => !p.required || known.has(p.name));
    if (strings && required.has('type') && required.has('status') && statusOk && generationOk && requiresOnlyKnown)
      conditions = { observedGeneration: generation?.type === 'integer' };
  }
  return {
    availableReplicas: status.get('availableReplicas')?.type === 'integer',
    observedGeneration: status.get('observedGeneration')?.type === 'integer',
    conditions,
  };
}

/** `text` as lines of a JSDoc block (` * …`, `first` the start of the first), wrapped at about 95 columns. */
function wrapDoc(first: string, text: string): string {
  const lines: string[] = [];
  let cur = first;
  for (const word of text.split(' ')) {
    if (cur.length + 1 + word.length > 95 && cur.trim() !== '*') {
      lines.push(cur);
      cur = ` * ${word}`;
    } else cur = cur === '' ? word : `${cur} ${word}`;
  }
  lines.push(cur);
  return lines.join('\n');
}

/** The doc of the DatabaseManager `desiredStatus`: what it writes, which is what the schema declares. */
function databaseManagerStatusDoc(s: DatabaseManagerStatus): string {
  const parts = [
    ...(s.availableReplicas ? ['`availableReplicas` from the Deployment'] : []),
    ...(s.observedGeneration ? ['`observedGeneration`'] : []),
    ...(s.conditions ? ['a `Ready` condition (True once every wanted replica is available)'] : []),
  ];
  const what =
    parts.length === 0
      ? 'as it is (its status schema declares none of the fields this logic writes).'
      : `${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]}.`;
  const text = [
    what,
    "Only the fields the CRD's status schema declares are written (the API server would prune others), so a status with `observedGeneration` and `conditions` gets those too.",
    ...(s.conditions ? ["Condition times only move when the condition's status changes."] : []),
  ].join(' ');
  return wrapDoc(' *', text);
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

/**
 * A kind an operator owns (`--owns`): a built-in of crdgen/runtime (`apps/v1/Deployment`,
 * `v1/Service`, …) or a kind of the inputs. Owned objects queue their controller owner, are
 * listed into the reconciler's `context.owned`, and get RBAC.
 */
export interface OwnedKind {
  /** `group/version/Kind`, `version/Kind` for the core group. */
  selector: string;
  group: string;
  version: string;
  kind: string;
  /** The resource (plural), as RBAC names it. */
  resource: string;
  namespaced: boolean;
  /** The names as controller.ts uses them (aliased on a clash). */
  typeName: string;
  descriptorName: string;
  /** Where from: the runtime, or the generated `apis/<group>/<version>/` of a kind of the inputs. */
  source:
    | { runtime: true; typeExport: string; descriptorExport: string }
    | { runtime: false; group: string; version: string; typeExport: string; descriptorExport: string };
  /** The key in `context.owned`. */
  field: string;
}

/** What the worked example owns: its Deployment, and a Service exposing the database port. */
export const DATABASE_MANAGER_OWNS: readonly string[] = ['apps/v1/Deployment', 'v1/Service'];

/** `CoreV1`, `AppsV1`, `NetworkingV1`: the prefix of an aliased name (client-go's import names). */
function aliasPrefix(group: string, version: string): string {
  const g =
    group === ''
      ? 'core'
      : groupFolder(group)
          .split('.')[0]
          .replace(/[^A-Za-z0-9]/g, '');
  return `${g[0].toUpperCase()}${g.slice(1)}${version.replace(/^v/, 'V')}`;
}

/** The owned kinds of `--owns` (or the config's `owns`) for the controller of `forKind`. */
export function resolveOwnedKinds(model: Model, ctx: EmitContext, forKind: ClientKind): OwnedKind[] {
  const selectors = [...(isDatabaseManagerShape(forKind.kind) ? DATABASE_MANAGER_OWNS : []), ...(ctx.owns ?? [])];
  const modelKinds = clientKinds(model, ctx.client, false).flatMap((gv) => gv.kinds);
  const out: OwnedKind[] = [];
  const seen = new Set<string>();
  for (const raw of selectors) {
    const parts = raw.split('/');
    if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) {
      throw new ControllerOptionsError(
        `--owns ${raw}: want group/version/Kind (version/Kind for the core group), e.g. apps/v1/Deployment or v1/Service`,
      );
    }
    const [group, version, kind] = parts.length === 2 ? ['', parts[0], parts[1]] : [parts[0], parts[1], parts[2]];
    const selector = group === '' ? `${version}/${kind}` : `${group}/${version}/${kind}`;
    if (seen.has(selector)) continue;
    seen.add(selector);
    const ck = modelKinds.find((k) => k.group.name === group && k.version.name === version && k.kind.kind === kind);
    let owned: OwnedKind;
    if (ck) {
      const missing = ['list', 'watch'].filter((v) => !(ck.verbs as string[]).includes(v));
      if (missing.length > 0)
        throw new ControllerOptionsError(
          `--owns ${selector}: the controller watches what it owns, which needs the client verbs ${missing.join(', ')} the client options remove`,
        );
      owned = {
        selector,
        group,
        version,
        kind,
        resource: ck.kind.plural,
        namespaced: ck.kind.scope === 'Namespaced',
        typeName: ck.names.type,
        descriptorName: `${ck.names.type}Resource`,
        source: {
          runtime: false,
          group,
          version,
          typeExport: ck.names.type,
          descriptorExport: `${ck.names.type}Resource`,
        },
        field: ck.names.pluralAccessor,
      };
    } else {
      const b = Object.prototype.hasOwnProperty.call(BUILTIN_OWNABLE, selector) ? BUILTIN_OWNABLE[selector] : undefined;
      if (!b) {
        const known = Object.keys(BUILTIN_OWNABLE).sort(compareStrings).join(', ');
        const inputs = [
          ...new Set(
            modelKinds.map((k) =>
              k.group.name === ''
                ? `${k.version.name}/${k.kind.kind}`
                : `${k.group.name}/${k.version.name}/${k.kind.kind}`,
            ),
          ),
        ].sort(compareStrings);
        throw new ControllerOptionsError(
          `--owns ${selector}: no such kind; built in: ${known}${inputs.length > 0 ? `; in the inputs: ${inputs.join(', ')}` : ''}`,
        );
      }
      owned = {
        selector,
        group,
        version,
        kind,
        resource: b.resource,
        namespaced: b.namespaced,
        typeName: b.type,
        descriptorName: b.descriptor,
        source: { runtime: true, typeExport: b.type, descriptorExport: b.descriptor },
        field: privateName(pluralName(kind)),
      };
    }
    if (forKind.kind.scope === 'Namespaced' && !owned.namespaced) {
      throw new ControllerOptionsError(
        `--owns ${selector}: ${forKind.kind.kind} is namespaced and cannot own cluster-scoped ${kind} objects (the garbage collector ignores such an owner reference)`,
      );
    }
    out.push(owned);
  }
  // names in controller.ts: the for kind's own, the runtime's, and each owned kind's once
  const taken = new Set<string>([
    forKind.names.type,
    `${forKind.names.type}Resource`,
    ...RUNTIME_TYPES,
    ...RUNTIME_VALUES,
  ]);
  const fields = new Set<string>();
  for (const o of out) {
    if (fields.has(o.field))
      throw new ControllerOptionsError(
        `--owns ${o.selector}: two owned kinds would both be context.owned.${o.field}; own one of them`,
      );
    fields.add(o.field);
    const same =
      o.source.runtime === false &&
      o.group === forKind.group.name &&
      o.version === forKind.version.name &&
      o.kind === forKind.kind.kind;
    if (same) continue; // the for kind itself: the same names
    if (taken.has(o.typeName) || taken.has(o.descriptorName)) {
      const prefix = aliasPrefix(o.group, o.version);
      o.typeName = `${prefix}${o.kind}`;
      o.descriptorName = `${prefix}${o.kind}Resource`;
      if (taken.has(o.typeName) || taken.has(o.descriptorName))
        throw new ControllerOptionsError(
          `--owns ${o.selector}: its names collide in controller.ts; own it through a kind of another name`,
        );
    }
    taken.add(o.typeName);
    taken.add(o.descriptorName);
  }
  return out;
}

/** Types controller.ts imports from the runtime (a kind of one of these names is aliased). */
const RUNTIME_TYPES = [
  'Controller',
  'ControllerOptions',
  'Manager',
  'OwnerReference',
  'ReconcileContext',
  'ReconcileRequest',
  'Result',
];
/** Values controller.ts imports from the runtime. */
const RUNTIME_VALUES = ['controlledObjects', 'isNotFound', 'newControllerManagedBy', 'newControllerRef'];

/** The controller emitter: nothing unless `ctx.controllers` names kinds. */
export const controller: Emitter = (model, ctx) => {
  const files: GeneratedFile[] = [];
  const seen = new Set<string>();
  for (const selector of ctx.controllers ?? []) {
    const ck = resolveControllerKind(model, ctx, selector);
    const dir = ck.kind.kind.toLowerCase();
    if (!isSafePathSegment(dir))
      throw new ControllerOptionsError(`--controller ${selector}: unsafe folder name ${JSON.stringify(dir)}`);
    if (seen.has(dir)) continue;
    seen.add(dir);
    files.push(...controllerFiles(model, ctx, ck, dir));
  }
  return files.sort((a, b) => compareStrings(a.path, b.path));
};

/** prettier's default print width: the generated code is laid out to need no formatter. */
const WIDTH = 80;

/**
 * `<head>object.call().call()…;` at `indent` spaces: flat when it fits, else prettier's
 * expanded member chain (one call per line), which it uses for chains of three calls or more.
 */
function chainStatement(indent: number, head: string, object: string, calls: readonly string[]): string {
  const pad = ' '.repeat(indent);
  const flat = `${pad}${head}${object}.${calls.join('.')};`;
  if (flat.length <= WIDTH || calls.length < 3) return flat;
  return `${pad}${head}${object}\n${calls.map((c) => `${pad}  .${c}`).join('\n')};`;
}

/** `a, b and c`. */
function listText(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function controllerFiles(model: Model, ctx: EmitContext, ck: ClientKind, dir: string): GeneratedFile[] {
  const { group, version, kind, names: n } = ck;
  const base = `controllers/${dir}`;
  const header = generatedHeader(ctx.sources);
  const yamlHeader = generatedYamlHeader(ctx.sources);
  const imp = (from: string, to: string): string => tsString(importPath(from, to));
  const api = (file: string, g = group.name, v = version.name): string => apiFilePath(g, v, file);
  const status = hasStatus(kind);
  const lowerType = privateName(n.type);
  const controllerPath = `${base}/controller.ts`;
  const owns = resolveOwnedKinds(model, ctx, ck);
  const common = { header, runtimeImport: tsString(ctx.runtimeImport), type: n.type, lowerType, pluralType: n.plural };
  const forDescriptor = `${n.type}Resource`;

  // controller.ts
  // a runtime type whose name a kind's type takes is imported as Runtime<Name>
  const localTypes = new Set([n.type, ...owns.map((o) => o.typeName)]);
  const rt: Record<string, string> = Object.fromEntries(
    RUNTIME_TYPES.map((t) => [t, localTypes.has(t) ? `Runtime${t}` : t]),
  );
  const runtimeOwned = owns.filter((o) => o.source.runtime);
  const spec = (exported: string, local: string): string => (exported === local ? exported : `${exported} as ${local}`);
  const runtimeValues = [
    ...RUNTIME_VALUES.filter((v) => v !== 'controlledObjects' || owns.length > 0),
    ...runtimeOwned.map((o) => spec(o.source.descriptorExport, o.descriptorName)),
  ];
  const runtimeTypes = [
    ...RUNTIME_TYPES.map((t) => spec(t, rt[t])),
    ...runtimeOwned.map((o) => spec(o.source.typeExport, o.typeName)),
  ].map((t) => `type ${t}`);
  const byName = (a: string, b: string): number => compareStrings(a.replace(/^type /, ''), b.replace(/^type /, ''));
  const modelImports = new Map<string, { types: string[]; values: string[] }>();
  const addModel = (g: string, v: string, type: string, descriptor: string): void => {
    const key = `${g}\0${v}`;
    const e = modelImports.get(key) ?? { types: [], values: [] };
    if (!e.types.includes(type)) e.types.push(type);
    if (!e.values.includes(descriptor)) e.values.push(descriptor);
    modelImports.set(key, e);
  };
  addModel(group.name, version.name, n.type, forDescriptor);
  for (const o of owns)
    if (!o.source.runtime)
      addModel(
        o.group,
        o.version,
        spec(o.source.typeExport, o.typeName),
        spec(o.source.descriptorExport, o.descriptorName),
      );
  const imports = [...modelImports.entries()].flatMap(([key, e]) => {
    const [g, v] = key.split('\0') as [string, string];
    return [
      importDecl(e.types.sort(byName), imp(controllerPath, api('types.ts', g, v)), true),
      importDecl(e.values.sort(byName), imp(controllerPath, api('register.ts', g, v))),
    ];
  });
  const setupName = `setup${n.type}Controller`;
  const builderCalls = [
    'named(controllerName)',
    `for(${forDescriptor})`,
    ...owns.map((o) => `owns(${o.descriptorName})`),
    'withOptions(options)',
    'complete(reconcileOne)',
  ];
  const builderDoc = `\`for(${forDescriptor})\`${owns.map((o) => `, \`owns(${o.descriptorName})\``).join('')}`;
  const files: GeneratedFile[] = [];
  const hooks = operatorWebhooks(ctx, ck); // --webhooks (webhooks.ts): main.ts, manager.yaml and crd.yaml change
  files.push({
    path: controllerPath,
    contents: render('controller', 'controller', {
      ...common,
      rt,
      runtimeImports: importDecl([...runtimeValues, ...runtimeTypes].sort(byName), tsString(ctx.runtimeImport)),
      imports: imports.join('\n'),
      controllerName: tsString(`${dir}-controller`),
      reconcileFile: tsString(`controllers/${dir}/reconcile.ts`),
      forDescriptor,
      ownedFields: owns
        .map((o) => `  /** ${o.selector}: ${o.kind} objects. */\n  ${o.field}: ${o.typeName}[];`)
        .join('\n'),
      informerFields: owns.map((o) => `    ${o.field}: manager.informer(${o.descriptorName}),`).join('\n'),
      ownedValues: owns
        .map((o) => callLine(6, `${o.field}: controlledObjects`, [`informers.${o.field}`, 'obj'], ','))
        .join('\n'),
      reconcilerType: callLine(
        0,
        `export type ${n.type}Reconciler = `,
        [`${lowerType}: ${n.type}`, `context: ${n.type}Context`],
        ` => Promise<${rt['Result']} | void>;`,
      ),
      builderDoc: wrapDoc(' *', builderDoc).replace(/^ \* /, ''),
      setupSignature: callLine(
        0,
        `export function ${setupName}`,
        [
          `manager: ${rt['Manager']}`,
          `options: ${rt['ControllerOptions']} = {}`,
          `reconciler: ${n.type}Reconciler = hooks.reconcile`,
        ],
        `: ${rt['Controller']} {`,
      ),
      reconcileSignature: callLine(
        2,
        'const reconcileOne = async ',
        [`request: ${rt['ReconcileRequest']}`, `context: ${rt['ReconcileContext']}`],
        `: Promise<${rt['Result']} | void> => {`,
      ),
      builderStatement: chainStatement(2, 'return ', 'newControllerManagedBy(manager)', builderCalls),
      getObject: callLine(6, 'obj = await context.client.get', [forDescriptor, 'request'], ';'),
      ownerReferenceLine: callLine(4, 'const ownerReference = newControllerRef', ['obj', forDescriptor], ';'),
    }),
  });

  // reconcile.ts (the user's)
  const reconcilePath = `${base}/reconcile.ts`;
  const typesImport = imp(reconcilePath, api('types.ts'));
  const contextImport = importDecl([`${n.type}Context`], tsString('./controller.js'), true);
  const statusAlias = status
    ? `\n\n/** The status of a ${n.type}. */\ntype Status = NonNullable<${n.type}["status"]>;`
    : '';
  const dmStatus = databaseManagerStatus(kind);
  let reconcile: string;
  if (isDatabaseManagerShape(kind)) {
    const statusMethod = kind.subresources.status ? 'updateStatus' : 'update';
    const writeStatus = (
      status
        ? render('controller', 'update-status', {
            ...common,
            statusMethod,
            signature: callLine(
              0,
              'async function writeStatus',
              [`${lowerType}: ${n.type}`, `context: ${n.type}Context`, 'observed: Observed'],
              ': Promise<void> {',
            ),
            statusVia: kind.subresources.status ? 'the /status subresource' : 'an update (no status subresource)',
          })
        : render('controller', 'update-status-none', {
            ...common,
            signature: callLine(
              0,
              'async function writeStatus',
              [`_${lowerType}: ${n.type}`, `_context: ${n.type}Context`, '_observed: Observed'],
              ': Promise<void> {}',
            ),
          })
    ).trimEnd();
    const runtimeNames = [
      'DeploymentResource',
      'ServiceResource',
      'deploymentUpdate',
      'isControlledBy',
      'isNotFound',
      'serviceUpdate',
      ...(dmStatus?.conditions ? ['findCondition', 'setCondition'] : []),
      'type Deployment',
      'type KubeObject',
      'type Result',
      'type Service',
      'type TypedResource',
    ].sort(byName);
    reconcile = render('controller', 'reconcile-databasemanager', {
      ...common,
      typesImport,
      registerLine: status ? `${importDecl([`${n.type}Resource`], imp(reconcilePath, api('register.ts')))}\n` : '',
      contextImport,
      runtimeImports: importDecl(runtimeNames, tsString(ctx.runtimeImport)),
      statusAlias:
        statusAlias +
        (dmStatus?.conditions
          ? `\n\n/** One condition of a ${n.type}'s status. */\ntype Condition = NonNullable<Status["conditions"]>[number];`
          : ''),
      statusHook: dmStatus
        ? render('controller', 'status-databasemanager', {
            ...common,
            statusDoc: databaseManagerStatusDoc(dmStatus),
            availableReplicas: dmStatus.availableReplicas,
            observedGeneration: dmStatus.observedGeneration,
            conditions: dmStatus.conditions !== false,
            conditionGeneration: dmStatus.conditions !== false && dmStatus.conditions.observedGeneration,
          })
        : '',
      writeStatus,
      ensureDeployment: callLine(
        2,
        'const deployment = await ensureOwned',
        [lowerType, 'context', 'DeploymentResource', 'desired.deployment', 'deploymentUpdate'],
        ';',
      ),
      ensureService: callLine(
        2,
        'await ensureOwned',
        [lowerType, 'context', 'ServiceResource', 'desiredService(desired.deployment)', 'serviceUpdate'],
        ';',
      ),
    });
  } else {
    const ownedDoc =
      owns.length === 0
        ? ' * - It owns nothing yet: name the kinds it creates with `--owns` (e.g. apps/v1/Deployment),\n *   and `context.owned` lists the ones it controls.'
        : wrapDoc(
            ' * -',
            `\`context.owned\` lists what it controls now (${listText(owns.map((o) => `\`${o.field}\``))}), from the cache.`,
          );
    reconcile = render('controller', 'reconcile-generic', {
      ...common,
      imports: [
        importDecl(['Result'], tsString(ctx.runtimeImport), true),
        importDecl([n.type], typesImport, true),
        contextImport,
      ].join('\n'),
      stubMarker: STUB_HOOKS_MARKER,
      ownedDoc: ownedDoc.replace(/\n \* (?!-)/g, '\n *   '),
      reconcileSignature: callLine(
        0,
        'export async function reconcile',
        [`_${lowerType}: ${n.type}`, `_context: ${n.type}Context`],
        ': Promise<Result> {',
      ),
    });
  }
  files.push({ path: reconcilePath, contents: reconcile, userOwned: true });
  const mainPath = `${base}/main.ts`;
  files.push({
    path: mainPath,
    contents: render('controller', 'main', {
      ...common,
      setupName,
      controllerImport: importDecl(['controllerName', setupName], tsString('./controller.js')),
      webhooks: hooks !== undefined,
    }),
  });
  files.push(
    ...configFiles(
      model,
      ctx,
      hooks ? withCrdConversion(group, kind.kind, hooks) : group,
      ck,
      owns,
      base,
      dir,
      yamlHeader,
      hooks,
    ),
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

/** One ClusterRole rule, as YAML lines. */
function rbacRule(apiGroup: string, resource: string, verbs: readonly string[]): string {
  return `  - apiGroups: [${apiGroup}]\n    resources: [${resource}]\n    verbs: [${verbs.join(', ')}]`;
}

/** Every verb a reconciler may need on an owned kind it writes itself (kubebuilder's default). */
const OWNED_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** The ClusterRole's rules and the comment above them: least privilege for the worked example, kubebuilder's defaults for a reconciler of the user's. */
function rbac(ck: ClientKind, owns: readonly OwnedKind[]): { comment: string; rules: string } {
  const kind = ck.kind;
  const yamlGroup = JSON.stringify(ck.group.name);
  const ownedGroup = (o: OwnedKind): string =>
    o.source.runtime ? (o.group === '' ? '""' : o.group) : JSON.stringify(o.group);
  const events = rbacRule('""', 'events', ['create', 'patch']);
  if (isDatabaseManagerShape(kind)) {
    const exact = new Map([
      ['apps/v1/Deployment', ['list', 'watch', 'create', 'update']],
      ['v1/Service', ['list', 'watch', 'create', 'update']],
    ]);
    const rules = [
      rbacRule(yamlGroup, kind.plural, ['get', 'list', 'watch']),
      rbacRule(yamlGroup, kind.subresources.status ? `${kind.plural}/status` : kind.plural, ['update']),
      ...owns.map((o) => rbacRule(ownedGroup(o), o.resource, exact.get(o.selector) ?? OWNED_VERBS)),
      events,
    ];
    const comment = [
      `# Least privilege for the ${ck.names.type} operator: exactly the verbs controller.ts, reconcile.ts`,
      '# and the runtime use (informers list+watch; the Deployment and the Service created and',
      '# updated, never deleted — the garbage collector does that; status written; Events created',
      '# and patched (aggregated repeats); the leader-election Lease read, created and renewed).',
    ];
    return { comment: comment.join('\n'), rules: rules.join('\n') };
  }
  const rules = [
    rbacRule(yamlGroup, kind.plural, ['get', 'list', 'watch', 'update', 'patch']),
    ...(kind.subresources.status ? [rbacRule(yamlGroup, `${kind.plural}/status`, ['update', 'patch'])] : []),
    rbacRule(yamlGroup, `${kind.plural}/finalizers`, ['update']),
    ...owns.map((o) => rbacRule(ownedGroup(o), o.resource, OWNED_VERBS)),
    events,
  ];
  const comment = [
    `# RBAC for the ${ck.names.type} operator: the ${ck.names.type} read (informer list+watch), updated and`,
    '# patched (finalizers), its status written, its finalizers updated (owner references with',
    '# blockOwnerDeletion need that); every verb on the kinds it owns (`--owns`), as kubebuilder',
    '# grants them, since reconcile.ts is yours: narrow them to what it does; Events created and',
    '# patched; the leader-election Lease read, created and renewed.',
  ];
  return { comment: comment.join('\n'), rules: rules.join('\n') };
}

function configFiles(
  model: Model,
  ctx: EmitContext,
  group: Group,
  ck: ClientKind,
  owns: readonly OwnedKind[],
  base: string,
  dir: string,
  yamlHeader: string,
  hooks?: OperatorWebhooks,
): GeneratedFile[] {
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
  return [
    ...crdFile.map((f) => ({ path: `${base}/config/crd.yaml`, contents: f.contents })),
    { path: `${base}/config/rbac.yaml`, contents: render('controller', 'rbac', { ...common, ...rbac(ck, owns) }) },
    {
      path: `${base}/config/manager.yaml`,
      contents: render('controller', 'manager', { ...common, webhooks: hooks?.names }),
    },
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
      }),
    },
  ];
}
