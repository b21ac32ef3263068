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
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { clientKinds, type ClientKind } from './client-kinds.js';
import { groupAccessor } from './informers.js';
import { listerPath } from './listers.js';
import { deepCopyName } from './deepcopy.js';
import { crd, generatedYamlHeader } from './crd.js';
import { compareStrings } from '../emit/sorted.js';

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
 * True for the DatabaseManager shape: spec.deploymentName/dbtype strings, spec.replicas an
 * integer, and a status with availableReplicas, observedGeneration and conditions. Such
 * kinds get the worked example's business logic; others the hooks to fill in.
 */
export function isDatabaseManagerShape(kind: Kind): boolean {
  const top = objectProps(kind.schema);
  const spec = objectProps(top.get('spec'));
  const status = objectProps(top.get('status'));
  return spec.get('deploymentName')?.type === 'string' && spec.get('dbtype')?.type === 'string' && spec.get('replicas')?.type === 'integer'
    && status.get('availableReplicas')?.type === 'integer' && status.get('observedGeneration')?.type === 'integer' && status.get('conditions')?.type === 'array';
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
  const statusClient = `this.options.clientset.${n.groupVersionAccessor}().${n.pluralAccessor}(${namespaced ? "obj.metadata?.namespace ?? ''" : ''})`;
  const statusMethod = kind.subresources.status ? 'updateStatus' : 'update';
  const deepCopy = kind.noDeepCopy ? 'structuredClone' : deepCopyName(n.type);
  const updateStatus = status
    ? render('controller', 'update-status', { type: n.type, deepCopy, statusClient, statusMethod, statusVia: kind.subresources.status ? 'the /status subresource' : 'an update (no status subresource)' })
    : render('controller', 'update-status-none', { type: n.type });
  const files: GeneratedFile[] = [];
  files.push({
    path: controllerPath,
    contents: render('controller', 'controller', {
      ...common,
      controllerName: `${dir}-controller`,
      typesImport: imp(controllerPath, api('types.ts')),
      registerImport: imp(controllerPath, api('register.ts')),
      deepcopyImportLine: kind.noDeepCopy ? '' : `import { ${deepCopy} } from ${imp(controllerPath, api('deepcopy.ts'))};\n`,
      clientsetImport: imp(controllerPath, 'clientset/clientset.ts'),
      factoryImport: imp(controllerPath, 'informers/factory.ts'),
      listerImport: imp(controllerPath, listerPath(group.name, version.name, n.fileName)),
      groupAccessor: groupAccessor(n.groupName),
      versionAccessor: privateName(n.versionName),
      pluralAccessor: n.pluralAccessor,
      groupVersionAccessor: n.groupVersionAccessor,
      listerGet: namespaced ? `this.lister.${n.pluralAccessor}(namespace).get(name)` : 'this.lister.get(name)',
      reconcileImports: status ? 'desiredDeployment, desiredStatus, type Observed' : 'desiredDeployment, type Observed',
      updateStatus,
    }),
  });
  const reconcilePath = `${base}/reconcile.ts`;
  const typesImport = imp(reconcilePath, api('types.ts'));
  const reconcile = isDatabaseManagerShape(kind)
    ? render('controller', 'reconcile-databasemanager', { ...common, typesImport })
    : render('controller', 'reconcile-generic', {
        ...common,
        typesImport,
        statusAlias: status ? `\n/** The status of a ${n.type}. */\ntype Status = NonNullable<${n.type}['status']>;\n` : '',
        statusHook: status ? render('controller', 'status-hook-generic', { type: n.type, lowerType }) : '',
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
    }),
  });
  files.push(...configFiles(model, ctx, group, ck, base, dir, yamlHeader));
  return files;
}

function configFiles(model: Model, ctx: EmitContext, group: Group, ck: ClientKind, base: string, dir: string, yamlHeader: string): GeneratedFile[] {
  const name = `${dir}-operator`;
  const namespace = `${dir}-system`;
  const kind = ck.kind;
  const crdFile = crd({ ...model, groups: [{ ...group, versions: group.versions.filter((v) => v.kinds.some((k) => k.kind === kind.kind)).map((v) => ({ ...v, kinds: v.kinds.filter((k) => k.kind === kind.kind) })) }] }, ctx);
  const common = { yamlHeader, type: ck.names.type, name, namespace };
  const dockerfilePath = `${base}/Dockerfile`;
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
    { path: `${base}/config/manager.yaml`, contents: render('controller', 'manager', common) },
    { path: dockerfilePath, contents: render('controller', 'dockerfile', { ...common, dir, mainJs: `dist/${base}/main.js`, dockerfilePath }) },
  ];
}
