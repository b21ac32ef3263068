// A CRD's metadata checked as kube-apiserver checks an object's metadata on create
// (apimachinery's ValidateObjectMeta, 1.37): the name (or generateName) with the CRD's own name
// rule, no namespace on a cluster-scoped object, generation, labels, annotations (keys and a total
// of 256 KiB), owner references, finalizers, managed fields. Field errors in its words, in its order.
import { forbidden, invalid, required, tooLong, type FieldError } from '../../runtime/validation/field-error.js';
import { goJson } from '../../runtime/validation/go-format.js';
import { labelValueErrors, qualifiedNameErrors, utf8Length } from './k8s-names.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The apiserver's limit on an object's annotations (keys and values, bytes). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** A name check: the messages for `name` (`prefix`: a generateName). */
export type NameCheck = (name: string, prefix: boolean) => string[];

/** One finding of the metadata checks: the error and where it points (segments under `metadata`). */
export interface MetaError {
  error: FieldError;
  at: (string | number | { key: string })[];
}

/** Go's `schema.ParseGroupVersion`: the error for an owner reference's apiVersion, if any. */
function groupVersionError(gv: string): boolean {
  if (gv === '' || gv === '/') return false;
  const parts = gv.split('/');
  if (parts.length === 1) return false;
  if (parts.length === 2) return parts[1] === '';
  return true;
}

/**
 * ValidateObjectMeta for a cluster-scoped object on create. `generatedName` is the name the
 * apiserver generates from generateName when there is no name (it validates that one).
 */
export function objectMetaErrors(meta: Obj, nameCheck: NameCheck, generatedName?: string): MetaError[] {
  const out: MetaError[] = [];
  const push = (error: FieldError, ...at: MetaError['at']): void => void out.push({ error, at });
  const generateName = str(meta.generateName);
  let name = str(meta.name);
  if (generateName !== '') {
    for (const m of nameCheck(generateName, true))
      push(invalid('metadata.generateName', generateName, m), 'generateName');
    if (name === '' && generatedName !== undefined) name = generatedName;
  }
  if (name === '') push(required('metadata.name', 'name or generateName is required'), 'name');
  else for (const m of nameCheck(name, false)) push(invalid('metadata.name', name, m), 'name');
  if (str(meta.namespace) !== '') push(forbidden('metadata.namespace', 'not allowed on this type'), 'namespace');
  if (typeof meta.generation === 'number' && meta.generation < 0)
    push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'), 'generation');
  if (isObj(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      for (const m of qualifiedNameErrors(k)) push(invalid('metadata.labels', k, m), 'labels', { key: k });
      for (const m of labelValueErrors(str(v))) push(invalid('metadata.labels', str(v), m), 'labels', { key: k });
    }
  }
  if (isObj(meta.annotations)) {
    let size = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      for (const m of qualifiedNameErrors(k.toLowerCase()))
        push(invalid('metadata.annotations', k, m), 'annotations', { key: k });
      size += utf8Length(k) + utf8Length(str(v));
    }
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
      push(tooLong('metadata.annotations', TOTAL_ANNOTATION_SIZE_LIMIT), 'annotations');
  }
  if (Array.isArray(meta.ownerReferences)) {
    let firstController = '';
    meta.ownerReferences.forEach((r, i) => {
      const ref = isObj(r) ? r : {};
      const at = `metadata.ownerReferences[${i}]`;
      const apiVersion = str(ref.apiVersion);
      if (apiVersion === '')
        push(required(`${at}.apiVersion`, 'must not be empty'), 'ownerReferences', i, 'apiVersion');
      else if (groupVersionError(apiVersion))
        push(
          invalid(`${at}.apiVersion`, apiVersion, 'must be <group>/<version> or <version>'),
          'ownerReferences',
          i,
          'apiVersion',
        );
      if (str(ref.kind) === '') push(required(`${at}.kind`, 'must not be empty'), 'ownerReferences', i, 'kind');
      if (str(ref.name) === '') push(required(`${at}.name`, 'must not be empty'), 'ownerReferences', i, 'name');
      if (str(ref.uid) === '') push(required(`${at}.uid`, 'must not be empty'), 'ownerReferences', i, 'uid');
      if ((apiVersion === 'v1' || apiVersion === '/v1') && ref.kind === 'Event')
        push(invalid(at, ref, '/v1, Kind=Event is disallowed from being an owner'), 'ownerReferences', i);
      if (ref.controller === true) {
        const current = `${str(ref.kind)}/${str(ref.name)}`;
        if (firstController !== '')
          push(
            {
              reason: 'FieldValueInvalid',
              field: 'metadata.ownerReferences',
              message: `Invalid value: ${ownerReferencesJson(meta.ownerReferences as unknown[])}: Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
            },
            'ownerReferences',
          );
        else firstController = current;
      }
    });
  }
  if (Array.isArray(meta.finalizers)) {
    const fins = meta.finalizers.map(str);
    fins.forEach((f, i) => {
      for (const m of qualifiedNameErrors(f)) push(invalid('metadata.finalizers', f, m), 'finalizers', i);
    });
    if (fins.includes('orphan') && fins.includes('foregroundDeletion'))
      push(
        invalid('metadata.finalizers', fins, 'finalizer orphan and foregroundDeletion cannot be both set'),
        'finalizers',
      );
  }
  if (Array.isArray(meta.managedFields)) {
    meta.managedFields.forEach((e, i) => {
      const entry = isObj(e) ? e : {};
      const at = `metadata.managedFields[${i}]`;
      const op = str(entry.operation);
      if (op !== 'Apply' && op !== 'Update')
        push(invalid(`${at}.operation`, op, 'must be `Apply` or `Update`'), 'managedFields', i, 'operation');
      const ft = str(entry.fieldsType);
      if (ft !== '' && ft !== 'FieldsV1')
        push(invalid(`${at}.fieldsType`, ft, 'must be `FieldsV1`'), 'managedFields', i, 'fieldsType');
      if (utf8Length(str(entry.subresource)) > 256)
        push(tooLong(`${at}.subresource`, 256), 'managedFields', i, 'subresource');
    });
  }
  return out;
}

/** Owner references as Go's json.Marshal prints the structs: fields in declaration order, empty ones left out. */
function ownerReferencesJson(refs: unknown[]): string {
  const order = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];
  return goJson(
    refs.map((r) => {
      const x = isObj(r) ? r : {};
      const o: Obj = {};
      for (const k of order) {
        if (k === 'controller' || k === 'blockOwnerDeletion') {
          if (typeof x[k] === 'boolean') o[k] = x[k];
        } else o[k] = str(x[k]);
      }
      return o;
    }),
    { sortKeys: false },
  );
}
