// The one CRD checker: a CustomResourceDefinition judged as kube-apiserver 1.37 judges a create
// (dryRun, fieldValidation=Strict as kubectl sends it), for `crdgen generate`/`validate` and for the
// test server's CRD admission alike. In the apiserver's order:
//  1. decode into the v1 structs (./decode.ts): wrong JSON types and unknown fields are refused
//     (a 400), fields under items/additionalProperties dropped (a warning here);
//  2. default as v1 does (singular, listKind, conversion None, service port 443) and convert to the
//     internal form, where a schema, subresources, printer columns or selectable fields that every
//     version shares move to the spec (`spec.validation`, …: the paths the errors name);
//  3. validate (apiextensions' ValidateCustomResourceDefinition): metadata, group, scope, versions
//     and their schemas (./check-schema.ts), names, subresources, columns, selectable fields,
//     conversion, stored versions, API approval, preserveUnknownFields.
// Each finding has the apiserver's message and field path (`diag.field`), and the path in the v1
// document (`path`) the reader turns into a line and column.
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from '../../runtime/validation/field-error.js';
import { goJson, goQuote } from '../../runtime/validation/go-format.js';
import { isDns1035Label, isDns1123Subdomain } from '../../model/naming.js';
import { decodeCrd, type DecodeSource } from './decode.js';
import { apiserverField, dottedPath, type Path, type Seg } from './field-path.js';
import type { Finding } from './field-errors.js';
import { checkSchemaWrapper, selectableFieldErrors } from './check-schema.js';
import { internalVersionsJson } from './internal.js';
import { dns1035LabelErrors, dns1123SubdomainErrors, isGoControl, isGoPrint, utf8Length } from './k8s-names.js';
import { objectMetaErrors } from './object-meta.js';
import { webhookServiceErrors, webhookUrlErrors } from './webhook.js';

/** The two CRD API versions crdgen reads. */
export const CRD_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'] as const;

export { dns1035LabelErrors, dns1123SubdomainErrors };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** One problem before positions: the apiserver's field error, its code, where it is in the internal form. */
export interface Cause {
  code: DiagnosticCode;
  error: FieldError;
  /** The internal form's path (the one `error.field` prints). */
  at: Path;
  hint?: string;
  /** What a reader of the file sees instead of `error.message` (a Go struct dump shortened). */
  readerMessage?: string;
}

/** Collects causes with the apiserver's builders; `field` is printed from the internal path. */
export class Causes {
  readonly list: Cause[] = [];
  add(code: DiagnosticCode, at: Path, error: (field: string) => FieldError, hint?: string): void {
    this.list.push({ code, at, error: error(apiserverField(at)), ...(hint ? { hint } : {}) });
  }
  invalid(code: DiagnosticCode, at: Path, value: unknown, detail: string, hint?: string): void {
    this.add(code, at, (f) => invalid(f, value, detail), hint);
  }
  /**
   * An Invalid whose value is printed as given (a Go struct already formatted); `reader` is the
   * value as the reader shows it instead, and a hint.
   */
  invalidText(
    code: DiagnosticCode,
    at: Path,
    text: string,
    detail: string,
    reader?: { value: string; hint?: string },
  ): void {
    this.add(
      code,
      at,
      (f) => ({ reason: 'FieldValueInvalid', field: f, message: `Invalid value: ${text}: ${detail}` }),
      reader?.hint,
    );
    if (reader) this.list[this.list.length - 1].readerMessage = `Invalid value: ${reader.value}: ${detail}`;
  }
  required(code: DiagnosticCode, at: Path, detail = '', hint?: string): void {
    this.add(code, at, (f) => required(f, detail), hint);
  }
  forbidden(code: DiagnosticCode, at: Path, detail: string, hint?: string): void {
    this.add(code, at, (f) => forbidden(f, detail), hint);
  }
  notSupported(code: DiagnosticCode, at: Path, value: unknown, supported: readonly string[], hint?: string): void {
    this.add(code, at, (f) => notSupported(f, value, supported), hint);
  }
  duplicate(code: DiagnosticCode, at: Path, value: unknown): void {
    this.add(code, at, (f) => duplicate(f, value));
  }
  tooMany(code: DiagnosticCode, at: Path, actual: number, max: number): void {
    this.add(code, at, (f) => tooMany(f, actual, max));
  }
}

/** A version of the internal form: the v1 version with what moved to the spec left out. */
interface InternalVersion {
  v: Obj;
  index: number;
  schema: Obj | undefined;
  subresources: Obj | undefined;
  columns: unknown[] | undefined;
  selectable: unknown[] | undefined;
}

/** The internal form's view of a defaulted v1 spec. */
interface Internal {
  versions: InternalVersion[];
  validation: Obj | undefined;
  subresources: Obj | undefined;
  columns: unknown[];
  selectable: unknown[];
  hoisted: { schema: boolean; subresources: boolean; columns: boolean; selectable: boolean };
}

/** v1 → internal: the per-version fields every version holds identically move to the spec. */
function internalForm(spec: Obj): Internal {
  const vs = arr(spec.versions).map((v) => (isObj(v) ? v : {}));
  const same = (k: string): boolean => {
    if (vs.length === 0) return false;
    if (vs.length === 1) return true;
    // (the first version's field written once: schemas are large)
    const first = JSON.stringify(vs[0][k]);
    return vs.every((v, i) => i === 0 || JSON.stringify(v[k]) === first);
  };
  const hoisted = {
    schema: same('schema'),
    subresources: same('subresources'),
    columns: same('additionalPrinterColumns'),
    selectable: same('selectableFields'),
  };
  const first = vs[0] ?? {};
  return {
    versions: vs.map((v, index) => ({
      v,
      index,
      schema: hoisted.schema ? undefined : isObj(v.schema) ? v.schema : undefined,
      subresources: hoisted.subresources ? undefined : isObj(v.subresources) ? v.subresources : undefined,
      columns: hoisted.columns
        ? undefined
        : Array.isArray(v.additionalPrinterColumns)
          ? v.additionalPrinterColumns
          : undefined,
      selectable: hoisted.selectable ? undefined : Array.isArray(v.selectableFields) ? v.selectableFields : undefined,
    })),
    validation: hoisted.schema && isObj(first.schema) ? first.schema : undefined,
    subresources: hoisted.subresources && isObj(first.subresources) ? first.subresources : undefined,
    columns: hoisted.columns && Array.isArray(first.additionalPrinterColumns) ? first.additionalPrinterColumns : [],
    selectable: hoisted.selectable && Array.isArray(first.selectableFields) ? first.selectableFields : [],
    hoisted,
  };
}

/** Where an internal path is in the v1 document (for positions). */
export function v1Path(at: Path): Path {
  const [a, b, ...rest] = at;
  if (a !== 'spec') return at;
  switch (b) {
    case 'validation':
      return ['spec', 'versions', 0, 'schema', ...rest];
    case 'subresources':
      return ['spec', 'versions', 0, 'subresources', ...rest];
    case 'additionalPrinterColumns':
      return [
        'spec',
        'versions',
        0,
        'additionalPrinterColumns',
        ...rest.map((s) => (s === 'JSONPath' ? 'jsonPath' : s)),
      ];
    case 'selectableFields':
      return ['spec', 'versions', 0, 'selectableFields', ...rest];
    case 'version':
      return ['spec', 'versions', 0, 'name'];
    case 'conversion':
      if (rest[0] === 'webhookClientConfig') return ['spec', 'conversion', 'webhook', 'clientConfig', ...rest.slice(1)];
      if (rest[0] === 'conversionReviewVersions') return ['spec', 'conversion', 'webhook', ...rest];
      return at;
    case 'versions':
      return at.map((s) => (s === 'JSONPath' ? 'jsonPath' : s));
  }
  return at;
}

const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** The outcome of {@link checkCrdRequest}. */
export interface CrdVerdict {
  /** The apiserver's decode error (Go's words), when it refuses the body at decode (a 400); `causes` are then empty. */
  decodeError?: string;
  /** The 422 causes, in the apiserver's order. */
  causes: Cause[];
  /** Every finding for the reader (decode errors and warnings, then the causes). */
  findings: Finding[];
  /** The CRD as decoded (nulls and dropped fields removed; not defaulted): what the reader builds from. */
  crd: Obj;
}

/** The apiserver's verdict on a v1 CRD object (`source`: literal forms the decoder should see). */
export function checkCrdRequest(value: unknown, source: DecodeSource = {}): CrdVerdict {
  const decoded = decodeCrd(value, source);
  const decodeErrors = decoded.findings.filter((f) => f.diag.severity === 'error');
  if (!isObj(value))
    return {
      decodeError: decoded.wireError ?? 'not an object',
      causes: [],
      findings: decoded.findings,
      crd: {},
    };
  // (the apiserver stops at a decode error; the reader reports what validation would add too)
  const crd = defaultedV1(decoded.crd);
  const causes = validateCrd(crd);
  return {
    ...(decodeErrors.length > 0 ? { decodeError: decoded.wireError ?? decodeErrors[0].diag.message } : {}),
    causes: decodeErrors.length > 0 ? [] : causes,
    findings: [...decoded.findings, ...forReader(causes, decoded.crd).map(toFinding)],
    crd: decoded.crd,
  };
}

/**
 * The causes as a reader of the file needs them: hints where the apiserver's words leave the fix
 * to guess (the expected name, a name defaulted from the kind), and without the stored-versions
 * error that only repeats a storage-version error (the file has no status to point at).
 */
function forReader(causes: Cause[], crd: Obj): Cause[] {
  const spec = isObj(crd.spec) ? crd.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  const kind = str(names.kind);
  const storage = causes.some(
    (c) =>
      c.error.field === 'spec.versions' &&
      c.error.message.endsWith('must have exactly one version marked as storage version'),
  );
  const defaulted: Record<string, string> = { singular: kind.toLowerCase(), listKind: `${kind}List` };
  return causes
    .filter((c) => !(storage && c.error.field === 'status.storedVersions'))
    .map((c) => {
      if (c.hint) return c;
      const f = c.error.field;
      if (f === 'metadata.name' && c.error.message.endsWith('must be spec.names.plural+"."+spec.group'))
        return { ...c, hint: `expected ${JSON.stringify(`${str(names.plural)}.${str(spec.group)}`)}` };
      const name = f.startsWith('spec.names.') ? f.slice('spec.names.'.length) : '';
      if (name in defaulted && str(names[name]) === '')
        return {
          ...c,
          hint: `${name} is not set: kube-apiserver defaults it from the kind to ${JSON.stringify(defaulted[name])}; set it, or fix the kind`,
        };
      return c;
    });
}

/** A cause as a reader finding: the apiserver's message and field, the v1 path for the position. */
export function toFinding(c: Cause): Finding {
  const path = v1Path(c.at);
  const diag: Diagnostic = {
    severity: 'error',
    code: c.code,
    message: c.readerMessage ?? c.error.message,
    path: dottedPath(path),
    field: c.error.field,
    reason: c.error.reason,
  };
  if (c.hint) diag.hint = c.hint;
  return { diag, path };
}

/** Every apiserver-equivalent check of a parsed v1 CRD, as findings (see {@link checkCrdRequest}). */
export function checkCrd(crd: unknown, source?: DecodeSource): Finding[] {
  return checkCrdRequest(crd, source).findings;
}

/** {@link checkCrd} as diagnostics without positions. */
export function checkCrdObject(crd: unknown): Diagnostic[] {
  return checkCrd(crd).map((f) => f.diag);
}

/**
 * `crd` with the v1 defaults (SetDefaults_CustomResourceDefinition), `crd` itself unchanged: only
 * the objects on the paths the defaults write are copied (shallow), the rest — the schemas — are
 * shared. Validation only reads, so a deep copy of every schema would cost time and garbage for
 * nothing.
 */
export function defaultedV1(crd: Obj): Obj {
  const spec: Obj = isObj(crd.spec) ? { ...crd.spec } : {};
  const names: Obj = isObj(spec.names) ? { ...spec.names } : {};
  if (str(names.singular) === '') names.singular = str(names.kind).toLowerCase();
  if (str(names.listKind) === '' && str(names.kind) !== '') names.listKind = `${str(names.kind)}List`;
  spec.names = names;
  const conv = spec.conversion;
  if (!isObj(conv)) spec.conversion = { strategy: 'None' };
  else if (isObj(conv.webhook) && isObj(conv.webhook.clientConfig)) {
    const webhook = conv.webhook;
    const clientConfig = conv.webhook.clientConfig;
    const svc = clientConfig.service;
    if (isObj(svc) && svc.port === undefined)
      spec.conversion = {
        ...conv,
        webhook: { ...webhook, clientConfig: { ...clientConfig, service: { ...svc, port: 443 } } },
      };
  }
  return { ...crd, spec };
}

/** The name rule of a CRD's metadata: a DNS subdomain, and `<plural>.<group>`. */
function nameCheck(spec: Obj): (name: string, prefix: boolean) => string[] {
  const names = isObj(spec.names) ? spec.names : {};
  const want = `${str(names.plural)}.${str(spec.group)}`;
  return (name, prefix) => {
    // NameIsDNSSubdomain: a prefix (generateName) ending in a dash has its last two characters masked
    const masked = prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
    const out = dns1123SubdomainErrors(masked);
    if (name !== want) out.push('must be spec.names.plural+"."+spec.group');
    return out;
  };
}

/** ValidateCustomResourceDefinition on the defaulted v1 object. */
export function validateCrd(crd: Obj): Cause[] {
  const out = new Causes();
  // a CRD is cluster-scoped: the apiserver clears metadata.namespace before it validates
  const metadata: Obj = isObj(crd.metadata) ? { ...crd.metadata, namespace: undefined } : {};
  const spec = isObj(crd.spec) ? crd.spec : {};
  // metadata (a generateName-only CRD is validated with the name the apiserver generates)
  for (const m of objectMetaErrors(metadata, nameCheck(spec), `${str(metadata.generateName)}xxxxx`))
    out.add(
      m.at[0] === 'name' || m.at[0] === 'generateName' ? 'CRD021' : 'CRD027',
      ['metadata', ...m.at],
      () => m.error,
    );
  validateSpec(spec, out);
  // status: on create the apiserver stores the storage version as the stored version
  const storage = arr(spec.versions).find((v) => isObj(v) && v.storage === true) as Obj | undefined;
  const stored = storage ? [str(storage.name)] : [];
  if (stored.length === 0)
    out.invalidText('CRD024', ['status', 'storedVersions'], 'null', 'must have at least one stored version');
  else
    for (const v of arr(spec.versions))
      if (isObj(v) && v.storage === true && v !== storage)
        out.invalidText(
          'CRD024',
          ['status', 'storedVersions'],
          JSON.stringify(stored),
          `must have the storage version ${str(v.name)}`,
        );
  validateApproval(metadata, str(spec.group), out);
  if (spec.preserveUnknownFields === true)
    out.invalid(
      'CRD034',
      ['spec', 'preserveUnknownFields'],
      true,
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
  return out.list;
}

function validateSpec(spec: Obj, out: Causes): void {
  const group = str(spec.group);
  if (group === '') out.required('CRD022', ['spec', 'group']);
  else {
    const errs = dns1123SubdomainErrors(group);
    if (errs.length > 0) out.invalid('CRD022', ['spec', 'group'], group, errs.join(','));
    else if (group.split('.').length < 2)
      out.invalid('CRD022', ['spec', 'group'], group, 'should be a domain with at least one dot');
  }
  const scope = str(spec.scope);
  if (scope === '') out.required('CRD023', ['spec', 'scope']);
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    out.notSupported(
      'CRD023',
      ['spec', 'scope'],
      scope,
      ['Cluster', 'Namespaced'],
      didYouMean(scope, ['Cluster', 'Namespaced']),
    );

  const internal = internalForm(spec);
  if (!internal.validation || !isObj(internal.validation.openAPIV3Schema)) {
    for (const v of internal.versions)
      if (!v.schema || !isObj(v.schema.openAPIV3Schema))
        out.required(
          'CRD010',
          ['spec', 'versions', v.index, 'schema', 'openAPIV3Schema'],
          '',
          'add schema.openAPIV3Schema with at least `type: object`',
        );
  }
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  for (const iv of internal.versions) {
    const v = iv.v;
    const name = str(v.name);
    if (v.storage === true) storage++;
    if (seen.has(name)) unique = false;
    seen.add(name);
    const errs = dns1035LabelErrors(name);
    if (errs.length > 0) out.invalid('CRD024', ['spec', 'versions', iv.index, 'name'], name, errs.join(','));
    const sub = internal.hoisted.subresources ? internal.subresources : iv.subresources;
    validateVersion(iv, hasStatus(sub), out);
  }
  // (the reader is shown the version names, not the Go struct the apiserver prints)
  const versionNames = JSON.stringify(arr(spec.versions).map((v) => (isObj(v) ? str(v.name) : '')));
  if (!unique)
    out.invalidText('CRD024', ['spec', 'versions'], internalVersionsJson(spec), 'must contain unique version names', {
      value: versionNames,
      hint: 'give each version its own name',
    });
  if (storage !== 1)
    out.invalidText(
      'CRD024',
      ['spec', 'versions'],
      Array.isArray(spec.versions) ? internalVersionsJson(spec) : 'null',
      'must have exactly one version marked as storage version',
      {
        value: Array.isArray(spec.versions) ? versionNames : 'null',
        hint: storage === 0 ? 'set `storage: true` on one version' : 'keep `storage: true` on one version only',
      },
    );
  const first = internal.versions[0];
  if (first) {
    const errs = dns1035LabelErrors(str(first.v.name));
    if (str(first.v.name) !== '' && errs.length > 0)
      out.invalid('CRD024', ['spec', 'version'], str(first.v.name), errs.join(','));
  }
  const names = isObj(spec.names) ? spec.names : {};
  if (str(names.plural) === '') out.required('CRD020', ['spec', 'names', 'plural']);
  if (str(names.singular) === '') out.required('CRD020', ['spec', 'names', 'singular']);
  if (str(names.kind) === '') out.required('CRD020', ['spec', 'names', 'kind']);
  if (str(names.listKind) === '') out.required('CRD020', ['spec', 'names', 'listKind']);
  validateNames(names, out);
  if (internal.validation)
    checkSchemaWrapper(internal.validation, anyStatus(spec, internal), ['spec', 'validation'], out);
  if (internal.subresources) validateSubresources(internal.subresources, ['spec', 'subresources'], out);
  internal.columns.forEach((c, i) => validateColumn(c, ['spec', 'additionalPrinterColumns', i], out));
  if (internal.selectable.length > 0) {
    if (!internal.validation)
      out.invalid('CRD029', ['spec', 'selectableFields'], '', 'may only be set when validations.schema is included');
    else
      selectableFieldErrors(
        internal.selectable,
        internal.validation.openAPIV3Schema,
        ['spec', 'selectableFields'],
        out,
      );
  }
  const conv = isObj(spec.conversion) ? spec.conversion : { strategy: 'None' };
  if (str(conv.strategy) !== 'None' && spec.preserveUnknownFields === true)
    out.invalid(
      'CRD028',
      ['spec', 'conversion', 'strategy'],
      str(conv.strategy),
      'must be None if spec.preserveUnknownFields is true',
    );
  validateConversion(conv, out);
}

function hasStatus(sub: Obj | undefined): boolean {
  return sub !== undefined && isObj(sub.status);
}

function anyStatus(spec: Obj, internal: Internal): boolean {
  if (hasStatus(internal.subresources)) return true;
  return arr(spec.versions).some((v) => isObj(v) && isObj(v.subresources) && isObj(v.subresources.status));
}

function validateVersion(iv: InternalVersion, statusEnabled: boolean, out: Causes): void {
  const v = iv.v;
  const base: Path = ['spec', 'versions', iv.index];
  if (typeof v.deprecationWarning === 'string') {
    // the bad value is the field's *string: printed as JSON, not quoted as a string
    for (const e of deprecationWarningErrors(v.deprecated === true, v.deprecationWarning))
      out.invalidText('CRD024', [...base, 'deprecationWarning'], goJson(v.deprecationWarning), e);
  }
  if (iv.schema) checkSchemaWrapper(iv.schema, statusEnabled, [...base, 'schema'], out);
  if (iv.subresources) validateSubresources(iv.subresources, [...base, 'subresources'], out);
  (iv.columns ?? []).forEach((c, i) => validateColumn(c, [...base, 'additionalPrinterColumns', i], out));
  if (iv.selectable && iv.selectable.length > 0) {
    if (!iv.schema || !isObj(iv.schema.openAPIV3Schema))
      out.invalid(
        'CRD029',
        [...base, 'selectableFields'],
        '',
        'may only be set when `version.schema.openAPIV3Schema` is not included',
      );
    else selectableFieldErrors(iv.selectable, iv.schema.openAPIV3Schema, [...base, 'selectableFields'], out);
  }
}

/** validateDeprecationWarning (offsets in UTF-8 bytes, as Go ranges over a string). */
export function deprecationWarningErrors(deprecated: boolean, w: string): string[] {
  if (!deprecated) return ['can only be set for deprecated versions'];
  const errs: string[] = [];
  if (utf8Length(w) > 256) errs.push('must be <= 256 characters long');
  if (w.length === 0) errs.push('must not be an empty string');
  let offset = 0;
  for (const ch of w) {
    if (!isGoPrint(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    if (isGoControl(ch)) {
      errs.push(`must only contain printable UTF-8 characters; control character found at index ${offset}`);
      break;
    }
    offset += utf8Length(ch);
  }
  if (/[\uD800-\uDFFF]/.test(w.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')))
    errs.push('must only contain printable UTF-8 characters');
  return errs;
}

function validateNames(names: Obj, out: Causes): void {
  const base: Path = ['spec', 'names'];
  const plural = str(names.plural);
  const singular = str(names.singular);
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  let errs = dns1035LabelErrors(plural);
  if (plural !== '' && errs.length > 0)
    out.invalid(
      'CRD020',
      [...base, 'plural'],
      plural,
      errs.join(','),
      plural !== plural.toLowerCase() ? 'plural must be all lowercase' : undefined,
    );
  errs = dns1035LabelErrors(singular);
  if (singular !== '' && errs.length > 0) out.invalid('CRD020', [...base, 'singular'], singular, errs.join(','));
  errs = dns1035LabelErrors(kind.toLowerCase());
  if (kind !== '' && errs.length > 0)
    out.invalid(
      'CRD020',
      [...base, 'kind'],
      kind,
      `may have mixed case, but should otherwise match: ${errs.join(',')}`,
    );
  errs = dns1035LabelErrors(listKind.toLowerCase());
  if (listKind !== '' && errs.length > 0)
    out.invalid(
      'CRD020',
      [...base, 'listKind'],
      listKind,
      `may have mixed case, but should otherwise match: ${errs.join(',')}`,
    );
  arr(names.shortNames).forEach((s, i) => {
    const e = dns1035LabelErrors(str(s));
    if (e.length > 0) out.invalid('CRD020', [...base, 'shortNames', i], str(s), e.join(','));
  });
  if (kind !== '' && kind === listKind)
    out.invalid('CRD020', [...base, 'listKind'], listKind, 'kind and listKind may not be the same');
  arr(names.categories).forEach((s, i) => {
    const e = dns1035LabelErrors(str(s));
    if (e.length > 0) out.invalid('CRD020', [...base, 'categories', i], str(s), e.join(','));
  });
}

/** validateSimpleJSONPath: the errors of a `.a.b` path. */
function simpleJsonPathError(s: string): string | undefined {
  if (s.length === 0) return 'must not be empty';
  if (s[0] !== '.') return 'must be a simple json path starting with .';
  return undefined;
}

function validateSubresources(sub: Obj, base: Path, out: Causes): void {
  const scale = sub.scale;
  if (!isObj(scale)) return;
  const p = (f: string): Path => [...base, 'scale', f];
  const spec = str(scale.specReplicasPath);
  if (spec === '') out.required('CRD025', p('specReplicasPath'));
  else {
    const e = simpleJsonPathError(spec);
    if (e) out.invalid('CRD025', p('specReplicasPath'), spec, e);
    else if (!spec.startsWith('.spec.'))
      out.invalid('CRD025', p('specReplicasPath'), spec, 'should be a json path under .spec');
  }
  const status = str(scale.statusReplicasPath);
  if (status === '') out.required('CRD025', p('statusReplicasPath'));
  else {
    const e = simpleJsonPathError(status);
    if (e) out.invalid('CRD025', p('statusReplicasPath'), status, e);
    else if (!status.startsWith('.status.'))
      out.invalid('CRD025', p('statusReplicasPath'), status, 'should be a json path under .status');
  }
  const sel = str(scale.labelSelectorPath);
  if (sel !== '') {
    const e = simpleJsonPathError(sel);
    if (e) out.invalid('CRD025', p('labelSelectorPath'), sel, e);
    else if (!sel.startsWith('.spec.') && !sel.startsWith('.status.'))
      out.invalid('CRD025', p('labelSelectorPath'), sel, 'should be a json path under either .spec or .status');
  }
}

function validateColumn(c: unknown, base: Path, out: Causes): void {
  const col = isObj(c) ? c : {};
  if (str(col.name) === '') out.required('CRD025', [...base, 'name']);
  const type = str(col.type);
  const types = `must be one of ${PRINTER_TYPES.join(',')}`;
  if (type === '') out.required('CRD025', [...base, 'type'], types);
  else if (!PRINTER_TYPES.includes(type))
    out.invalid('CRD025', [...base, 'type'], type, types, didYouMean(type, PRINTER_TYPES));
  const format = str(col.format);
  if (format !== '' && !PRINTER_FORMATS.includes(format))
    out.invalid(
      'CRD025',
      [...base, 'format'],
      format,
      `must be one of ${PRINTER_FORMATS.join(',')}`,
      didYouMean(format, PRINTER_FORMATS),
    );
  const jp = str(col.jsonPath);
  if (jp === '') out.required('CRD025', [...base, 'JSONPath']);
  else {
    const e = simpleJsonPathError(jp);
    if (e) out.invalid('CRD025', [...base, 'JSONPath'], jp, e);
  }
}

function validateConversion(conv: Obj, out: Causes): void {
  const base: Path = ['spec', 'conversion'];
  const strategy = str(conv.strategy);
  if (strategy === '') out.required('CRD028', [...base, 'strategy']);
  else if (strategy !== 'None' && strategy !== 'Webhook')
    out.notSupported(
      'CRD028',
      [...base, 'strategy'],
      strategy,
      ['None', 'Webhook'],
      didYouMean(strategy, ['None', 'Webhook']),
    );
  const webhook = isObj(conv.webhook) ? conv.webhook : undefined;
  const cc = webhook && isObj(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviews =
    webhook && Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.map(str) : undefined;
  if (strategy === 'Webhook') {
    const ccPath: Path = [...base, 'webhookClientConfig'];
    if (!cc) out.required('CRD028', ccPath, 'required when strategy is set to Webhook');
    else {
      const hasUrl = typeof cc.url === 'string';
      const hasService = isObj(cc.service);
      if (hasUrl === hasService) out.required('CRD028', ccPath, 'exactly one of url or service is required');
      else if (hasUrl)
        for (const e of webhookUrlErrors(apiserverField([...ccPath, 'url']), str(cc.url)))
          out.add('CRD028', [...ccPath, 'url'], () => e);
      else {
        const s = cc.service as Obj;
        const field = apiserverField([...ccPath, 'service']);
        const port = typeof s.port === 'number' ? s.port : 443;
        for (const e of webhookServiceErrors(
          field,
          str(s.name),
          str(s.namespace),
          typeof s.path === 'string' ? s.path : undefined,
          port,
        ))
          out.add('CRD028', [...ccPath, 'service', e.field.slice(field.length + 1)], () => e);
      }
      // an invalid caBundle is allowed on create (the CRD is not established yet)
    }
    const rv: Path = [...base, 'conversionReviewVersions'];
    if (!reviews || reviews.length < 1) out.required('CRD028', rv);
    else {
      const seen = new Set<string>();
      let accepted = false;
      reviews.forEach((v, i) => {
        if (seen.has(v)) {
          out.invalid('CRD028', [...rv, i], v, 'duplicate version');
          return;
        }
        seen.add(v);
        for (const e of dns1035LabelErrors(v)) out.invalid('CRD028', [...rv, i], v, e);
        if (REVIEW_VERSIONS.includes(v)) accepted = true;
      });
      if (!accepted) out.invalid('CRD028', rv, reviews, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`);
    }
  } else {
    if (cc)
      out.forbidden(
        'CRD028',
        [...base, 'webhookClientConfig'],
        'should not be set when strategy is not set to Webhook',
      );
    if (reviews && reviews.length > 0)
      out.forbidden(
        'CRD028',
        [...base, 'conversionReviewVersions'],
        'should not be set when strategy is not set to Webhook',
      );
  }
}

function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' || group === 'kubernetes.io' || group.endsWith('.k8s.io') || group.endsWith('.kubernetes.io')
  );
}

function validateApproval(metadata: Obj, group: string, out: Causes): void {
  if (!isProtectedGroup(group)) return;
  const ann = isObj(metadata.annotations) ? metadata.annotations : {};
  const k = 'api-approved.kubernetes.io';
  const at: Path = ['metadata', 'annotations', { key: k }];
  const v = Object.hasOwn(ann, k) ? str(ann[k]) : undefined;
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (v === undefined)
    out.required('CRD026', at, `protected groups must have approval annotation ${goQuote(k)}, ${see}`);
  else if (v.startsWith('unapproved')) return;
  else {
    let url = false;
    try {
      const u = new URL(v);
      url = u.protocol !== '' && u.host !== '';
    } catch {
      url = false;
    }
    if (!url)
      out.invalid(
        'CRD026',
        at,
        v,
        `protected groups must have approval annotation ${goQuote(k)} with either a URL or a reason starting with "unapproved", ${see}`,
      );
  }
}

/** `did you mean "x"?` for the closest candidate (see field-errors.ts). */
function didYouMean(value: string, candidates: readonly string[]): string | undefined {
  return didYouMeanImpl(value, candidates);
}

import { didYouMean as didYouMeanImpl } from './field-errors.js';

/** True when the group would be valid (used by readers before making paths). */
export function isValidGroup(group: string): boolean {
  return isDns1123Subdomain(group) && group.includes('.');
}

/** True when the version name is a DNS-1035 label. */
export function isValidVersionName(v: string): boolean {
  return isDns1035Label(v);
}

export type { Seg };
