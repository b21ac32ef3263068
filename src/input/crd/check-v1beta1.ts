// An apiextensions.k8s.io/v1beta1 CRD checked as a v1beta1-era apiserver (1.16-1.21) checked it:
// its field types, metadata and spec, the OpenAPI schema rules, and the structural-schema
// invariants only when pruning is on. kube-apiserver 1.22 and later no longer serve v1beta1, so
// there is no newer verdict to follow; v1 CRDs go through ./check.ts. Also: the versions of either
// API version as the apiserver sees them after defaulting (normalizeVersions), which the reader
// builds its model from.

import { checkShape } from './crd-shape.js';
import { checkSchema, isObj } from './check-schema-v1beta1.js';
import { didYouMean, forbidden, invalid, notSupported, required, type Finding } from './field-errors.js';
import { child, type Path } from './field-path.js';

const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** apimachinery's IsDNS1123Subdomain messages for `s` (empty when valid). */
function dns1123SubdomainErrors(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s)) errs.push(DNS1123_SUBDOMAIN_MSG);
  return errs;
}

/** apimachinery's IsDNS1035Label messages for `s` (empty when valid). */
function dns1035LabelErrors(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s)) errs.push(DNS1035_LABEL_MSG);
  return errs;
}

const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One version of a CRD after v1beta1 defaulting, with where its parts live in the document. */
export interface NormalizedVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema: unknown;
  schemaPath: Path;
  subresources: unknown;
  subresourcesPath: Path;
  columns: unknown[];
  columnsPath: Path;
  /** Path of the version entry (or of `spec.version` for a v1beta1 single-version CRD). */
  path: Path;
}

/**
 * The versions of a CRD as the apiserver sees them after defaulting: v1beta1's
 * `spec.version` becomes one served storage version, and top-level
 * `validation`/`subresources`/`additionalPrinterColumns` apply to every version.
 */
export function normalizeVersions(crd: unknown): NormalizedVersion[] {
  if (!isObj(crd) || !isObj(crd.spec)) return [];
  const spec = crd.spec;
  const raw: { v: Obj; path: Path }[] = Array.isArray(spec.versions)
    ? spec.versions.map((v, i) => ({ v: isObj(v) ? v : {}, path: ['spec', 'versions', i] as Path }))
    : typeof spec.version === 'string'
      ? [{ v: { name: spec.version, served: true, storage: true }, path: ['spec', 'version'] as Path }]
      : [];
  const topSchema = isObj(spec.validation) ? spec.validation.openAPIV3Schema : undefined;
  return raw.map(({ v, path }) => {
    const perSchema = isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
    const useTop = perSchema === undefined && topSchema !== undefined;
    const perSub = v.subresources;
    const perCols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : undefined;
    const nv: NormalizedVersion = {
      name: str(v.name),
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      schema: useTop ? topSchema : perSchema,
      schemaPath: useTop ? ['spec', 'validation', 'openAPIV3Schema'] : child(path, 'schema', 'openAPIV3Schema'),
      subresources: perSub !== undefined ? perSub : spec.subresources,
      subresourcesPath: perSub !== undefined ? child(path, 'subresources') : ['spec', 'subresources'],
      columns: perCols ?? (Array.isArray(spec.additionalPrinterColumns) ? spec.additionalPrinterColumns : []),
      columnsPath: perCols ? child(path, 'additionalPrinterColumns') : ['spec', 'additionalPrinterColumns'],
      path,
    };
    if (typeof v.deprecationWarning === 'string') nv.deprecationWarning = v.deprecationWarning;
    return nv;
  });
}

/** The checks of a v1beta1 CRD object, with the path segments kept (for source positions). */
export function checkV1beta1Crd(crd: unknown): Finding[] {
  if (!isObj(crd)) return [invalid('CRD011', [], crd ?? null, 'must be of type object')];
  const apiVersion = str(crd.apiVersion);
  const isV1 = apiVersion !== 'apiextensions.k8s.io/v1beta1';
  const out = checkShape(crd, isV1);
  const metadata = isObj(crd.metadata) ? crd.metadata : {};
  const spec = isObj(crd.spec) ? crd.spec : undefined;
  if (!spec) return out;
  const names = isObj(spec.names) ? spec.names : {};
  const group = str(spec.group);
  const plural = str(names.plural);
  const kind = str(names.kind);

  // metadata.name
  const name = str(metadata.name);
  if (name !== '') {
    for (const e of dns1123SubdomainErrors(name)) out.push(invalid('CRD021', ['metadata', 'name'], name, e));
    if (plural !== '' && name !== `${plural}.${group}`) {
      out.push(
        invalid(
          'CRD021',
          ['metadata', 'name'],
          name,
          'must be spec.names.plural+"."+spec.group',
          `expected "${plural}.${group}"`,
        ),
      );
    }
  }
  // spec.group
  if (typeof spec.group === 'string') {
    if (group === '') out.push(required('CRD022', ['spec', 'group']));
    else {
      const errs = dns1123SubdomainErrors(group);
      if (errs.length > 0) out.push(invalid('CRD022', ['spec', 'group'], group, errs.join(',')));
      else if (group.split('.').length < 2)
        out.push(invalid('CRD022', ['spec', 'group'], group, 'should be a domain with at least one dot'));
    }
  }
  // spec.scope
  if (typeof spec.scope === 'string') {
    if (spec.scope === '') out.push(required('CRD023', ['spec', 'scope']));
    else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
      out.push(
        notSupported(
          'CRD023',
          ['spec', 'scope'],
          spec.scope,
          ['Cluster', 'Namespaced'],
          didYouMean(spec.scope, ['Cluster', 'Namespaced']),
        ),
      );
    }
  }
  if (isV1 && spec.preserveUnknownFields === true) {
    out.push(
      invalid(
        'CRD034',
        ['spec', 'preserveUnknownFields'],
        true,
        'cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  checkVersions(spec, isV1, out);
  checkNames(names, kind, out);
  checkConversion(spec, out);
  checkApproval(metadata, group, isV1, out);
  return out;
}

function checkVersions(spec: Obj, isV1: boolean, out: Finding[]): void {
  const versions = normalizeVersions({ spec });
  const perVersionSchema =
    Array.isArray(spec.versions) && spec.versions.some((v) => isObj(v) && v.schema !== undefined);
  if (spec.validation !== undefined && perVersionSchema) {
    out.push(forbidden('CRD024', ['spec', 'validation'], 'top-level and per-version schemas are mutually exclusive'));
  }
  const perVersionSub =
    Array.isArray(spec.versions) && spec.versions.some((v) => isObj(v) && v.subresources !== undefined);
  if (spec.subresources !== undefined && perVersionSub) {
    out.push(
      forbidden('CRD025', ['spec', 'subresources'], 'top-level and per-version subresources are mutually exclusive'),
    );
  }
  const pruning = isV1 || spec.preserveUnknownFields === false;
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v) => {
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = dns1035LabelErrors(v.name);
    if (nameErrs.length > 0)
      out.push(
        invalid(
          'CRD024',
          v.path[v.path.length - 1] === 'version' ? v.path : child(v.path, 'name'),
          v.name,
          nameErrs.join(','),
        ),
      );
    if (v.deprecationWarning !== undefined) {
      const w = v.deprecationWarning;
      const p = child(v.path, 'deprecationWarning');
      if (!v.deprecated) out.push(invalid('CRD024', p, w, 'can only be set for deprecated versions'));
      else if (w.length > 256) out.push(invalid('CRD024', p, w, 'must be <= 256 characters long'));
      else if (w.length === 0) out.push(invalid('CRD024', p, w, 'must not be an empty string'));
    }
    const sub = isObj(v.subresources) ? v.subresources : undefined;
    const statusEnabled = sub !== undefined && sub.status !== undefined && sub.status !== null;
    if (v.schema === undefined) {
      if (isV1)
        out.push(
          required(
            'CRD010',
            v.schemaPath,
            'schemas are required',
            'add schema.openAPIV3Schema with at least `type: object`',
          ),
        );
    } else {
      out.push(
        ...checkSchema(v.schema, v.schemaPath, {
          requireStructural: pruning || hasK8sExtensions(v.schema),
          statusEnabled,
        }),
      );
    }
    if (sub) checkScale(sub, v.subresourcesPath, out);
    v.columns.forEach((c, i) => checkColumn(c, child(v.columnsPath, i), out));
  });
  if (Array.isArray(spec.versions) || typeof spec.version === 'string') {
    if (!unique)
      out.push(
        invalid(
          'CRD024',
          ['spec', 'versions'],
          versions.map((v) => v.name),
          'must contain unique version names',
        ),
      );
    if (storage !== 1) {
      out.push(
        invalid(
          'CRD024',
          ['spec', 'versions'],
          versions.map((v) => v.name),
          'must have exactly one version marked as storage version',
          storage === 0 ? 'set `storage: true` on one version' : 'keep `storage: true` on one version only',
        ),
      );
    }
  }
  if (
    typeof spec.version === 'string' &&
    spec.version !== '' &&
    Array.isArray(spec.versions) &&
    spec.versions.length >= 1
  ) {
    const first = isObj(spec.versions[0]) ? spec.versions[0].name : undefined;
    if (first !== spec.version)
      out.push(invalid('CRD024', ['spec', 'version'], spec.version, 'must match the first version in spec.versions'));
  }
}

function hasK8sExtensions(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasK8sExtensions);
  if (!isObj(s)) return false;
  for (const [k, v] of Object.entries(s)) {
    if (k === 'default' || k === 'enum' || k === 'example') continue;
    if (k.startsWith('x-kubernetes-')) return true;
    if (typeof v === 'object' && hasK8sExtensions(v)) return true;
  }
  return false;
}

function checkScale(sub: Obj, path: Path, out: Finding[]): void {
  const scale = sub.scale;
  if (!isObj(scale)) return;
  const p = (f: string): Path => child(path, `scale.${f}`);
  const spec = str(scale.specReplicasPath);
  if (spec === '') out.push(required('CRD025', p('specReplicasPath')));
  else if (!spec.startsWith('.'))
    out.push(invalid('CRD025', p('specReplicasPath'), spec, 'must be a simple json path starting with .'));
  else if (!spec.startsWith('.spec.'))
    out.push(invalid('CRD025', p('specReplicasPath'), spec, 'should be a json path under .spec'));
  const status = str(scale.statusReplicasPath);
  if (status === '') out.push(required('CRD025', p('statusReplicasPath')));
  else if (!status.startsWith('.'))
    out.push(invalid('CRD025', p('statusReplicasPath'), status, 'must be a simple json path starting with .'));
  else if (!status.startsWith('.status.'))
    out.push(invalid('CRD025', p('statusReplicasPath'), status, 'should be a json path under .status'));
  const sel = str(scale.labelSelectorPath);
  if (sel !== '') {
    if (!sel.startsWith('.'))
      out.push(invalid('CRD025', p('labelSelectorPath'), sel, 'must be a simple json path starting with .'));
    else if (!sel.startsWith('.spec.') && !sel.startsWith('.status.'))
      out.push(invalid('CRD025', p('labelSelectorPath'), sel, 'should be a json path under either .spec or .status'));
  }
}

function checkColumn(c: unknown, path: Path, out: Finding[]): void {
  if (!isObj(c)) return;
  if (str(c.name) === '') out.push(required('CRD025', child(path, 'name')));
  const type = str(c.type);
  if (type === '') out.push(required('CRD025', child(path, 'type'), `must be one of ${PRINTER_TYPES.join(',')}`));
  else if (!PRINTER_TYPES.includes(type))
    out.push(
      invalid(
        'CRD025',
        child(path, 'type'),
        type,
        `must be one of ${PRINTER_TYPES.join(',')}`,
        didYouMean(type, PRINTER_TYPES),
      ),
    );
  const format = str(c.format);
  if (format !== '' && !PRINTER_FORMATS.includes(format))
    out.push(
      invalid(
        'CRD025',
        child(path, 'format'),
        format,
        `must be one of ${PRINTER_FORMATS.join(',')}`,
        didYouMean(format, PRINTER_FORMATS),
      ),
    );
  const jpKey = c.jsonPath !== undefined ? 'jsonPath' : c.JSONPath !== undefined ? 'JSONPath' : 'jsonPath';
  const jp = str(c[jpKey]);
  if (jp === '') out.push(required('CRD025', child(path, jpKey)));
  else if (!jp.startsWith('.'))
    out.push(invalid('CRD025', child(path, jpKey), jp, 'must be a simple json path starting with .'));
}

function checkNames(names: Obj, kind: string, out: Finding[]): void {
  const base: Path = ['spec', 'names'];
  const plural = str(names.plural);
  const singular = str(names.singular);
  const listKind = str(names.listKind);
  if (typeof names.plural === 'string' && plural === '') out.push(required('CRD020', child(base, 'plural')));
  if (typeof names.kind === 'string' && kind === '') out.push(required('CRD020', child(base, 'kind')));
  let errs = dns1035LabelErrors(plural);
  if (plural !== '' && errs.length > 0)
    out.push(
      invalid(
        'CRD020',
        child(base, 'plural'),
        plural,
        errs.join(','),
        plural !== plural.toLowerCase() ? 'plural must be all lowercase' : undefined,
      ),
    );
  errs = dns1035LabelErrors(singular);
  if (singular !== '' && errs.length > 0)
    out.push(invalid('CRD020', child(base, 'singular'), singular, errs.join(',')));
  errs = dns1035LabelErrors(kind.toLowerCase());
  if (kind !== '' && errs.length > 0)
    out.push(
      invalid(
        'CRD020',
        child(base, 'kind'),
        kind,
        `may have mixed case, but should otherwise match: ${errs.join(',')}`,
      ),
    );
  errs = dns1035LabelErrors(listKind.toLowerCase());
  if (listKind !== '' && errs.length > 0)
    out.push(
      invalid(
        'CRD020',
        child(base, 'listKind'),
        listKind,
        `may have mixed case, but should otherwise match: ${errs.join(',')}`,
      ),
    );
  (Array.isArray(names.shortNames) ? names.shortNames : []).forEach((s, i) => {
    const e = dns1035LabelErrors(str(s));
    if (typeof s === 'string' && e.length > 0)
      out.push(invalid('CRD020', child(base, 'shortNames', i), s, e.join(',')));
  });
  if (kind !== '' && kind === listKind)
    out.push(invalid('CRD020', child(base, 'listKind'), listKind, 'kind and listKind may not be the same'));
  (Array.isArray(names.categories) ? names.categories : []).forEach((s, i) => {
    const e = dns1035LabelErrors(str(s));
    if (typeof s === 'string' && e.length > 0)
      out.push(invalid('CRD020', child(base, 'categories', i), s, e.join(',')));
  });
}

function checkConversion(spec: Obj, out: Finding[]): void {
  const conv = spec.conversion;
  if (!isObj(conv)) return;
  const strategy = str(conv.strategy);
  if (strategy === '') out.push(required('CRD023', ['spec', 'conversion', 'strategy']));
  else if (strategy !== 'None' && strategy !== 'Webhook')
    out.push(
      notSupported(
        'CRD023',
        ['spec', 'conversion', 'strategy'],
        strategy,
        ['None', 'Webhook'],
        didYouMean(strategy, ['None', 'Webhook']),
      ),
    );
}

function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' || group === 'kubernetes.io' || group.endsWith('.k8s.io') || group.endsWith('.kubernetes.io')
  );
}

function checkApproval(metadata: Obj, group: string, isV1: boolean, out: Finding[]): void {
  if (!isV1 || !isProtectedGroup(group)) return;
  const ann = isObj(metadata.annotations) ? metadata.annotations : {};
  const k = 'api-approved.kubernetes.io';
  const v = ann[k];
  const path: Path = ['metadata', 'annotations', { key: k }];
  if (typeof v !== 'string' || v === '') {
    out.push(
      required(
        'CRD026',
        path,
        `protected groups must have approval annotation "${k}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    );
  } else if (!v.startsWith('unapproved') && !/^https?:\/\/\S+$/.test(v)) {
    out.push(
      invalid(
        'CRD026',
        path,
        v,
        `protected groups must have approval annotation "${k}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    );
  }
}
