// CustomResourceDefinitions: defaulting and checks on create/update (the foundation's
// CRD reader checks, through a seam until they land), the status the apiserver sets
// (NamesAccepted, Established), and the resources a CRD serves.
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject, nowRfc3339 } from './meta.js';
import type { PrinterColumn, ResourceInfo } from './resource.js';
import { checkCrdWithReader, lazyCustomResourceSchema, schemaRejection } from './engines.js';
import type { FieldCause } from './status.js';
import { internalVersionsJson } from './crd-internal.js';
import { crdConversion } from './conversion.js';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return isObject(v) ? v : {};
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Applies the apiserver's CRD defaults in place (singular, listKind, conversion, version flags). */
export function defaultCrd(crd: KubeObject): void {
  const c = crd as KubeObject & { spec?: Rec };
  if (!isObject(c.spec)) return;
  const names = rec(c.spec.names);
  if (typeof names.kind === 'string') {
    if (names.singular === undefined || names.singular === '') names.singular = names.kind.toLowerCase();
    if (names.listKind === undefined || names.listKind === '') names.listKind = `${names.kind}List`;
  }
  if (!isObject(c.spec.conversion)) c.spec.conversion = { strategy: 'None' };
}

/** The checks a CRD must pass before it can be served, as field errors in the apiserver's wording. */
export async function checkCrd(crd: KubeObject): Promise<FieldCause[]> {
  const errs: FieldCause[] = [];
  const c = crd as KubeObject & { spec?: Rec };
  const spec = rec(c.spec);
  const names = rec(spec.names);
  const group = spec.group;
  if (typeof group !== 'string' || group === '') errs.push(required('spec.group'));
  else if (!group.includes('.')) {
    errs.push({
      reason: 'FieldValueInvalid',
      field: 'spec.group',
      message: `Invalid value: "${group}": should be a domain with at least one dot`,
    });
  }
  if (typeof names.plural !== 'string' || names.plural === '') errs.push(required('spec.names.plural'));
  if (typeof names.kind !== 'string' || names.kind === '') errs.push(required('spec.names.kind'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errs.push(
      spec.scope === undefined
        ? required('spec.scope')
        : {
            reason: 'FieldValueNotSupported',
            field: 'spec.scope',
            message: `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"`,
          },
    );
  }
  const versions = arr(spec.versions);
  if (versions.length === 0)
    errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => rec(v).storage === true).length !== 1) {
    errs.push({
      reason: 'FieldValueInvalid',
      field: 'spec.versions',
      message: `Invalid value: ${internalVersionsJson(spec)}: must have exactly one version marked as storage version`,
    });
    // storedVersions come from the storage version: none without one
    if (!versions.some((v) => rec(v).storage === true))
      errs.push({
        reason: 'FieldValueInvalid',
        field: 'status.storedVersions',
        message: 'Invalid value: null: must have at least one stored version',
      });
  }
  if (typeof names.plural === 'string' && typeof group === 'string') {
    const want = `${names.plural}.${group}`;
    if (crd.metadata?.name !== want) {
      errs.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${crd.metadata?.name ?? ''}": must be spec.names.plural+"."+spec.group`,
      });
    }
  }
  // The foundation's CRD reader checks (schema types, structural rules, …), when available.
  let structural = true;
  for (const { code, ...e } of await checkCrdWithReader(crd)) {
    if (STRUCTURAL_CODES.has(code)) structural = false;
    // the reader words the storage-version error for a file (version names); ours is the apiserver's
    if (e.field === 'spec.versions' && e.message.endsWith('must have exactly one version marked as storage version'))
      continue;
    if (!errs.some((x) => x.field === e.field && x.message === e.message)) errs.push(e);
  }
  // The apiserver compiles rules and checks defaults only on a structural schema, beside the other errors.
  if (!structural) return hoistPaths(spec, errs);
  // A schema the validation engine refuses (e.g. a CEL rule that does not compile) is refused
  // too. Only rules need the engine itself: the validators are compiled on first use.
  const vs = arr(spec.versions).map(rec);
  for (let i = 0; i < vs.length; i++) {
    const schema = rec(vs[i].schema).openAPIV3Schema;
    if (!isObject(schema)) continue;
    errs.push(...(await schemaRejection(schema, `spec.versions[${i}].schema`)));
  }
  // Defaults must be valid under their own schema (and pruned), as the apiserver checks them.
  for (let i = 0; i < vs.length; i++) {
    const schema = rec(vs[i].schema).openAPIV3Schema;
    if (isObject(schema)) errs.push(...(await defaultErrors(schema, `spec.versions[${i}].schema.openAPIV3Schema`)));
  }
  return hoistPaths(spec, errs);
}

/** The reader's codes for a schema that is not structural (no rule compile, no default check then). */
const STRUCTURAL_CODES = new Set(['CRD030', 'CRD031', 'CRD033', 'CRD034', 'CRD035', 'CRD039']);

/**
 * The apiserver validates a v1 CRD in its internal form, where a schema, subresources or
 * printer columns that every version shares are hoisted to `spec.validation`,
 * `spec.subresources` and `spec.additionalPrinterColumns`: its errors name those paths.
 */
function hoistPaths(spec: Rec, errs: FieldCause[]): FieldCause[] {
  const vs = arr(spec.versions).map(rec);
  if (vs.length === 0) return errs;
  const same = (k: string): boolean => vs.every((v) => JSON.stringify(v[k]) === JSON.stringify(vs[0][k]));
  // the internal column type's field is JSONPath, and so is the apiserver's path to it
  const rules: [RegExp, string][] = [[/(\.additionalPrinterColumns\[\d+\])\.jsonPath\b/, '$1.JSONPath']];
  if (same('schema')) rules.push([/^spec\.versions\[\d+\]\.schema\b/, 'spec.validation']);
  if (same('subresources')) rules.push([/^spec\.versions\[\d+\]\.subresources\b/, 'spec.subresources']);
  if (same('additionalPrinterColumns'))
    rules.push([/^spec\.versions\[\d+\]\.additionalPrinterColumns\b/, 'spec.additionalPrinterColumns']);
  if (same('selectableFields')) rules.push([/^spec\.versions\[\d+\]\.selectableFields\b/, 'spec.selectableFields']);
  const out: FieldCause[] = [];
  for (const e of errs) {
    let field = e.field;
    for (const [re, to] of rules) field = field.replace(re, to);
    if (!out.some((x) => x.field === field && x.message === e.message)) out.push({ ...e, field });
  }
  return out;
}

/** Field errors of every `default` in a schema that its own schema refuses (the reader's check, as the apiserver's causes). */
async function defaultErrors(schema: Rec, path: string): Promise<FieldCause[]> {
  const { defaultProblems } = await import('../input/crd/defaults.js');
  const { apiserverField } = await import('../input/crd/field-path.js');
  return defaultProblems(schema).map((p) => {
    const at = `${path}.${apiserverField(p.path)}`;
    return { reason: p.reason, field: p.inside ? `${at}.${p.inside}` : at, message: p.message };
  });
}

function required(field: string, detail?: string): FieldCause {
  return { reason: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' };
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
