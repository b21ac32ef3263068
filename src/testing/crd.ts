// CustomResourceDefinitions: defaulting and checks on create/update (the one CRD checker, that
// of `crdgen generate`, src/input/crd/check.ts, loaded on first use), the status the apiserver sets
// (NamesAccepted, Established), and the resources a CRD serves.
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject, nowRfc3339 } from './meta.js';
import type { PrinterColumn, ResourceInfo } from './resource.js';
import { lazyCustomResourceSchema } from './engines.js';
import { badRequest, type FieldCause } from './status.js';
import { crdConversion } from './conversion.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return isObject(v) ? v : {};
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Applies the apiserver's v1 CRD defaults in place (singular, listKind, conversion, a service's port). */
export function defaultCrd(crd: KubeObject): void {
  const c = crd as KubeObject & { spec?: Rec };
  if (!isObject(c.spec)) return;
  const names = rec(c.spec.names);
  if (typeof names.kind === 'string') {
    if (names.singular === undefined || names.singular === '') names.singular = names.kind.toLowerCase();
    if (names.listKind === undefined || names.listKind === '') names.listKind = `${names.kind}List`;
  }
  if (!isObject(c.spec.conversion)) c.spec.conversion = { strategy: 'None' };
  const service = rec(rec(rec(c.spec.conversion).webhook).clientConfig).service;
  if (isObject(service) && service.port === undefined) service.port = 443;
}

let checker: Promise<typeof import('../input/crd/check.js')> | undefined;

/**
 * The checks a CRD must pass before it can be served: the CRD checker's causes, in the apiserver's
 * order and words. A body the checker's decoder refuses (which the request decoding let through)
 * is a 400, as the apiserver answers it.
 */
export async function checkCrd(crd: KubeObject): Promise<FieldCause[]> {
  const mod = await (checker ??= import('../input/crd/check.js'));
  const verdict = mod.checkCrdRequest(crd);
  if (verdict.decodeError !== undefined)
    throw badRequest(
      `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${verdict.decodeError}`,
    );
  return verdict.causes.map((c) => ({ reason: c.error.reason, field: c.error.field, message: c.error.message }));
}

/** The status the apiserver gives an accepted CRD: names accepted, established, stored versions. */
export function establishedStatus(crd: KubeObject, old?: KubeObject): Rec {
  const spec = rec((crd as { spec?: unknown }).spec);
  const now = nowRfc3339();
  const prev = rec((old as { status?: unknown } | undefined)?.status);
  const prevConds = arr(prev.conditions).map(rec);
  const since = (type: string): string => {
    const p = prevConds.find((c) => c.type === type && c.status === 'True');
    return typeof p?.lastTransitionTime === 'string' ? p.lastTransitionTime : now;
  };
  const storage = arr(spec.versions)
    .map(rec)
    .find((v) => v.storage === true);
  const stored = new Set<string>(arr(prev.storedVersions).filter((v): v is string => typeof v === 'string'));
  if (typeof storage?.name === 'string') stored.add(storage.name);
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: since('NamesAccepted'),
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: since('Established'),
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: structuredClone(rec(spec.names)),
    storedVersions: [...stored],
  };
}

/** The `Terminating` condition set while a CRD's objects are being removed. */
export function terminatingCondition(): Rec {
  return {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: nowRfc3339(),
    reason: 'InstanceDeletionInProgress',
    message: 'CustomResource deletion is in progress',
  };
}

/** The resources (one per served version) a valid CRD serves; their validators compile on first use. */
export function crdResources(crd: KubeObject): ResourceInfo[] {
  const spec = rec((crd as { spec?: unknown }).spec);
  const names = rec(spec.names);
  const group = String(spec.group);
  const plural = String(names.plural);
  const kind = String(names.kind);
  const out: ResourceInfo[] = [];
  const storageName = arr(spec.versions)
    .map(rec)
    .find((v) => v.storage === true)?.name;
  const storageVersion = typeof storageName === 'string' ? storageName : '';
  const conversion = crdConversion(spec, storageVersion);
  for (const v of arr(spec.versions).map(rec)) {
    if (v.served !== true) continue;
    const sub = rec(v.subresources);
    const scale = isObject(sub.scale) ? sub.scale : undefined;
    const openAPIV3Schema = rec(v.schema).openAPIV3Schema;
    const info: ResourceInfo = {
      group,
      version: String(v.name),
      resource: plural,
      singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(),
      kind,
      listKind: typeof names.listKind === 'string' && names.listKind ? names.listKind : `${kind}List`,
      namespaced: spec.scope !== 'Cluster',
      shortNames: arr(names.shortNames).filter((s): s is string => typeof s === 'string'),
      categories: arr(names.categories).filter((s): s is string => typeof s === 'string'),
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      statusSubresource: isObject(sub.status),
      hasGeneration: true,
      strategicMerge: false,
      custom: true,
      columns: printerColumns(v),
      storagePrefix: `/${group}/${plural}`,
      conversion,
    };
    const selectable = arr(v.selectableFields)
      .map((f) => rec(f).jsonPath)
      .filter((p): p is string => typeof p === 'string');
    if (selectable.length) info.selectableFields = selectable;
    if (scale) {
      info.scale = {
        specReplicasPath: typeof scale.specReplicasPath === 'string' ? scale.specReplicasPath : '.spec.replicas',
        statusReplicasPath:
          typeof scale.statusReplicasPath === 'string' ? scale.statusReplicasPath : '.status.replicas',
      };
      if (typeof scale.labelSelectorPath === 'string') info.scale.labelSelectorPath = scale.labelSelectorPath;
    }
    if (isObject(openAPIV3Schema)) {
      info.schema = lazyCustomResourceSchema(openAPIV3Schema);
      info.openAPIV3Schema = openAPIV3Schema;
    }
    out.push(info);
  }
  return out;
}

function printerColumns(version: Rec): PrinterColumn[] {
  const cols = arr(version.additionalPrinterColumns).map(rec);
  const out: PrinterColumn[] = cols.map((c) => {
    const col: PrinterColumn = {
      name: String(c.name),
      type: typeof c.type === 'string' ? c.type : 'string',
      jsonPath: typeof c.jsonPath === 'string' ? c.jsonPath : '',
    };
    if (typeof c.format === 'string') col.format = c.format;
    if (typeof c.description === 'string') col.description = c.description;
    if (typeof c.priority === 'number') col.priority = c.priority;
    return col;
  });
  // (no columns: the table convertor's default Age column, table.ts)
  return out;
}
