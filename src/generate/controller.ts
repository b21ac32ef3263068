// Output: controllers/<kind>/ for each kind named by `--controller <Kind>` (or config):
//   controller.ts  — `export class DatabaseManagerController { run(workers, signal); processNextWorkItem(); syncHandler(key) }` (regenerated)
//   reconcile.ts   — `export function desiredDeployment(dm): Desired; export function desiredStatus(dm, observed)` (user-owned, written once)
//   main.ts        — `process.exitCode = await runOperator({ name, newController })` (flags, leader election, metrics, health)
//   config/crd.yaml, config/rbac.yaml, config/manager.yaml, Dockerfile — what deploys it
import type { Group, Kind, Model, ObjectNode, SchemaNode } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { isSafePathSegment, privateName, tsString } from '../model/naming.js';
import { callLine, importDecl } from './layout.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { apiFilePath } from './paths.js';
import { clientKinds, type ClientKind } from './client-kinds.js';
import { groupAccessor } from './informers.js';
import { listerPath } from './listers.js';
import { deepCopyName } from './deepcopy.js';
import { crd, generatedYamlHeader } from './crd.js';
import { compareStrings } from '../emit/sorted.js';
import { operatorWebhooks, withCrdConversion, type OperatorWebhooks } from './webhooks.js';

/** The esbuild release the generated Dockerfile bundles the operator with (the one crdgen's own tests and benchmark use). */
export const OPERATOR_ESBUILD_VERSION = '0.28.2';

/**
 * The banner of the operator bundle: the CommonJS dependencies bundled into the ES module
 * (pino, prom-client) call `require` for Node's built-in modules.
 */
export const OPERATOR_BUNDLE_BANNER = "import { createRequire as __crdgenRequire } from 'node:module'; const require = __crdgenRequire(import.meta.url);";

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
    throw new ControllerOptionsError(`--controller ${selector}: no such kind; known kinds: ${known.join(', ') || '(none)'}`);
  }
  if (groups.length > 1) throw new ControllerOptionsError(`--controller ${selector}: kind ${kind} is in several groups (${groups.join(', ')}); write <group>/${kind}`);
  const chosen = matches.find((ck) => ck.kind.storage) ?? matches[0]!;
  const statusVerb = chosen.kind.subresources.status ? 'updateStatus' : 'update';
  const needed = ['get', 'list', 'watch', ...(hasStatus(chosen.kind) ? [statusVerb] : [])];
  const missing = needed.filter((v) => !(chosen.verbs as string[]).includes(v));
  if (missing.length > 0) throw new ControllerOptionsError(`--controller ${selector}: the controller needs the client verbs ${missing.join(', ')} of ${kind}, which the client options remove`);
  return chosen;
}

/** Every problem with `ctx.controllers` (empty when fine). */
export function controllerErrors(model: Model, ctx: EmitContext): string[] {
  const out: string[] = [];
  for (const s of ctx.controllers ?? []) {
    try {
      resolveControllerKind(model, ctx, s);
    } catch (e) {
      if (!(e instanceof ControllerOptionsError)) throw e;
      out.push(e.message);
    }
  }
  return out;
}

function objectProps(node: SchemaNode | undefined): Map<string, SchemaNode> {
  return new Map(node?.type === 'object' ? (node as ObjectNode).properties.map((p) => [p.name, p.schema]) : []);
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
  return spec.get('deploymentName')?.type === 'string' && spec.get('dbtype')?.type === 'string' && spec.get('replicas')?.type === 'integer';
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
    if (strings && required.has('type') && required.has('status') && statusOk && generationOk && requiresOnlyKnown) conditions = { observedGeneration: generation?.type === 'integer' };
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
  const what = parts.length === 0 ? 'as it is (its status schema declares none of the fields this logic writes).' : `${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]}.`;
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
export function stubHookWarnings(files: readonly GeneratedFile[], existing: (path: string) => string | undefined, display: (path: string) => string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of files) {
    if (!f.userOwned || !f.contents.includes(STUB_HOOKS_MARKER)) continue;
    const text = existing(f.path) ?? f.contents;
    const at = text.split('\n').findIndex((l) => l.trim() === STUB_HOOKS_MARKER);
    if (at < 0) continue;
    out.push({
      severity: 'warning',
      code: 'GEN005',
      message: `${display(f.path)} still has the generated stub hooks: the operator does nothing (desiredDeployment returns None) until you fill them in`,
      file: display(f.path),
      line: at + 1,
      col: 1,
      hint: 'write desiredDeployment and desiredStatus, then delete `export const stubHooks = true;` (the operator also warns at start-up while it is there)',
    });
  }
  return out;
}

/** The controller emitter: nothing unless `ctx.controllers` names kinds. */
export const controller: Emitter = (model, ctx) => {
  const files: GeneratedFile[] = [];
  const seen = new Set<string>();
  for (const selector of ctx.controllers ?? []) {
    const ck = resolveControllerKind(model, ctx, selector);
    const dir = ck.kind.kind.toLowerCase();
    if (!isSafePathSegment(dir)) throw new ControllerOptionsError(`--controller ${selector}: unsafe folder name ${JSON.stringify(dir)}`);
    if (seen.has(dir)) continue;
    seen.add(dir);
    files.push(...controllerFiles(model, ctx, ck, dir));
  }
  return files.sort((a, b) => compareStrings(a.path, b.path));
};

/** prettier's default print width: the generated code is laid out to need no formatter. */
const WIDTH = 80;

/**
 * `const name = object.call().call()…;` at `indent` spaces: flat when it fits, else prettier's
 * expanded member chain (one call per line), which it uses for chains of three calls or more.
 */
function chainStatement(indent: number, name: string, object: string, calls: readonly string[]): string {
  const pad = ' '.repeat(indent);
  const flat = `${pad}const ${name} = ${object}.${calls.join('.')};`;
  if (flat.length <= WIDTH || calls.length < 3) return flat;
  return `${pad}const ${name} = ${object}\n${calls.map((c) => `${pad}  .${c}`).join('\n')};`;
}

function controllerFiles(model: Model, ctx: EmitContext, ck: ClientKind, dir: string): GeneratedFile[] {
  const { group, version, kind, names: n } = ck;
  const base = `controllers/${dir}`;
  const header = generatedHeader(ctx.sources);
  const yamlHeader = generatedYamlHeader(ctx.sources);
  const imp = (from: string, to: string): string => tsString(importPath(from, to));
  const api = (file: string): string => apiFilePath(group.name, version.name, file);
  const namespaced = kind.scope === 'Namespaced';
  const status = hasStatus(kind);
  const lowerType = privateName(n.type);
  const controllerPath = `${base}/controller.ts`;
  const common = { header, runtimeImport: tsString(ctx.runtimeImport), type: n.type, lowerType, pluralType: n.plural };
  const statusMethod = kind.subresources.status ? 'updateStatus' : 'update';
  const deepCopy = kind.noDeepCopy ? 'structuredClone' : deepCopyName(n.type);
  const statusWrite = [
    ...(namespaced ? ['    const namespace = obj.metadata?.namespace ?? "";'] : []),
    `    const client = this.options.clientset.${n.groupVersionAccessor}();`,
    `    await client.${n.pluralAccessor}(${namespaced ? 'namespace' : ''}).${statusMethod}(copy);`,
  ].join('\n');
  const updateStatus = (status
    ? render('controller', 'update-status', {
        deepCopy,
        statusWrite,
        signature: callLine(2, 'private async updateStatus', [`obj: ${n.type}`, 'observed: Observed'], ': Promise<void> {'),
        statusVia: kind.subresources.status ? 'the /status subresource' : 'an update (no status subresource)',
      })
    : render('controller', 'update-status-none', {
        type: n.type,
        signature: callLine(2, 'private async updateStatus', [`_obj: ${n.type}`, '_observed: Observed'], ': Promise<void> {}'),
      })
  ).trimEnd();
  const imports = [
    importDecl([n.type], imp(controllerPath, api('types.ts')), true),
    importDecl([`${n.type}GVK`], imp(controllerPath, api('register.ts'))),
    ...(kind.noDeepCopy ? [] : [importDecl([deepCopy], imp(controllerPath, api('deepcopy.ts')))]),
    importDecl(['Clientset'], imp(controllerPath, 'clientset/clientset.ts'), true),
    importDecl(['SharedInformerFactory'], imp(controllerPath, 'informers/factory.ts'), true),
    importDecl([`${n.type}Lister`], imp(controllerPath, listerPath(group.name, version.name, n.fileName)), true),
    importDecl(status ? ['desiredDeployment', 'desiredStatus', 'type Observed'] : ['desiredDeployment', 'type Observed'], tsString('./reconcile.js')),
  ].join('\n');
  const files: GeneratedFile[] = [];
  const hooks = operatorWebhooks(ctx, ck); // --webhooks (webhooks.ts): main.ts, manager.yaml and crd.yaml change
  files.push({
    path: controllerPath,
    contents: render('controller', 'controller', {
      ...common,
      controllerName: tsString(`${dir}-controller`),
      reconcileFile: tsString(`controllers/${dir}/reconcile.ts`),
      syncedMessage: tsString(`${n.type} synced successfully`),
      imports,
      informerStatement: chainStatement(4, 'informer', 'factory', [`${groupAccessor(n.groupName)}()`, `${privateName(n.versionName)}()`, `${n.pluralAccessor}()`]),
      listerGet: namespaced ? `      obj = this.lister.${n.pluralAccessor}(namespace).get(name);` : '      obj = this.lister.get(name);',
      updateStatus,
    }),
  });
  const reconcilePath = `${base}/reconcile.ts`;
  const typesImport = imp(reconcilePath, api('types.ts'));
  const statusAlias = status ? `\n\n/** The status of a ${n.type}. */\ntype Status = NonNullable<${n.type}["status"]>;` : '';
  const dmStatus = databaseManagerStatus(kind);
  const reconcile = isDatabaseManagerShape(kind)
    ? render('controller', 'reconcile-databasemanager', {
        ...common,
        typesImport,
        runtimeImports: dmStatus?.conditions ? importDecl(['findCondition', 'setCondition', 'type Deployment'], tsString(ctx.runtimeImport)) : importDecl(['Deployment'], tsString(ctx.runtimeImport), true),
        statusAlias: statusAlias + (dmStatus?.conditions ? `\n\n/** One condition of a ${n.type}'s status. */\ntype Condition = NonNullable<Status["conditions"]>[number];` : ''),
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
      })
    : render('controller', 'reconcile-generic', {
        ...common,
        typesImport,
        statusAlias,
        stubMarker: STUB_HOOKS_MARKER,
        deploymentHookSignature: callLine(0, 'export function desiredDeployment', [`_${lowerType}: ${n.type}`], ': Desired {'),
        statusHook: status
          ? render('controller', 'status-hook-generic', {
              lowerType,
              signature: callLine(0, 'export function desiredStatus', [`${lowerType}: ${n.type}`, '_observed: Observed'], ': Status {'),
            })
          : '',
      });
  files.push({ path: reconcilePath, contents: reconcile, userOwned: true });
  const mainPath = `${base}/main.ts`;
  files.push({
    path: mainPath,
    contents: render('controller', 'main', {
      ...common,
      clientsetImport: imp(mainPath, 'clientset/clientset.ts'),
      factoryImport: imp(mainPath, 'informers/factory.ts'),
      registerImport: imp(mainPath, api('register.ts')),
      controllerImport: importDecl([`${n.type}Controller`, 'controllerName'], tsString('./controller.js')),
      webhooks: hooks !== undefined,
    }),
  });
  files.push(...configFiles(model, ctx, hooks ? withCrdConversion(group, kind.kind, hooks) : group, ck, base, dir, yamlHeader, hooks));
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
  if (!/^[A-Za-z0-9._/-]+$/.test(p) || p.startsWith('/') || p.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) return DOCUMENTED_OUT_DIR;
  return p;
}

function configFiles(model: Model, ctx: EmitContext, group: Group, ck: ClientKind, base: string, dir: string, yamlHeader: string, hooks?: OperatorWebhooks): GeneratedFile[] {
  const name = `${dir}-operator`;
  const namespace = `${dir}-system`;
  const kind = ck.kind;
  const crdFile = crd({ ...model, groups: [{ ...group, versions: group.versions.filter((v) => v.kinds.some((k) => k.kind === kind.kind)).map((v) => ({ ...v, kinds: v.kinds.filter((k) => k.kind === kind.kind) })) }] }, ctx);
  const common = { yamlHeader, type: ck.names.type, name, namespace };
  const dockerfilePath = `${base}/Dockerfile`;
  const outDir = dockerOutDir(ctx.outDir);
  return [
    ...crdFile.map((f) => ({ path: `${base}/config/crd.yaml`, contents: f.contents })),
    {
      path: `${base}/config/rbac.yaml`,
      contents: render('controller', 'rbac', {
        ...common,
        yamlGroup: JSON.stringify(group.name),
        resourceName: kind.plural,
        statusResource: kind.subresources.status ? `${kind.plural}/status` : kind.plural,
      }),
    },
    { path: `${base}/config/manager.yaml`, contents: render('controller', 'manager', { ...common, webhooks: hooks?.names }) },
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
