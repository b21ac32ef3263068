// Schema-shaped checks with ajv: the CRD object and every JSONSchemaProps node
// have the right field types and the required fields, before any semantic rule
// runs. Errors come out worded as the apiserver words them.

import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import { CRD_SHAPE } from './crd-shape-schema.js';
import { pointerToPath, child } from './field-path.js';
import { required, typeInvalid, type Finding } from './field-errors.js';

export { CRD_SHAPE } from './crd-shape-schema.js';

/** An ajv validate function (compiled here, or the standalone one the build wrote). */
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Where the build writes the standalone validator of {@link CRD_SHAPE}, beside this module in dist/. */
export const STANDALONE_VALIDATOR = './crd-shape.validate.cjs';

let validator: ValidateFunction | undefined;

/** The options of the ajv instance that checks the shape (the build's standalone code uses them too). */
export const AJV_OPTIONS = { allErrors: true, strict: false } as const;

/**
 * The validator: the standalone code `npm run build` precompiled into dist/ (no ajv at run
 * time, no schema compilation), else (running from src/) ajv compiling {@link CRD_SHAPE}.
 */
function getValidator(): ValidateFunction {
  if (!validator) {
    const require = createRequire(import.meta.url);
    try {
      validator = require(STANDALONE_VALIDATOR) as ValidateFunction;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
      const { Ajv } = require('ajv') as typeof import('ajv');
      validator = new Ajv(AJV_OPTIONS).compile(CRD_SHAPE) as ValidateFunction;
    }
  }
  return validator;
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  if (pointer === '') return cur;
  for (const raw of pointer.slice(1).split('/')) {
    const p = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return cur;
}

/**
 * Checks field types and required fields of a CRD object with ajv. Returns the
 * findings in document order, de-duplicated (an `anyOf` failing yields one
 * finding, for its first branch). `versions` is required only for v1.
 */
export function checkShape(crd: unknown, isV1: boolean): Finding[] {
  const validate = getValidator();
  const findings: Finding[] = [];
  if (!validate(crd)) {
    const seen = new Set<string>();
    const errors = validate.errors ?? [];
    // Errors inside anyOf branches are noise once the anyOf itself failed at the same place.
    const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
    for (const e of errors) {
      let f: Finding | undefined;
      if (e.keyword === 'required') {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        f = required('CRD010', child(pointerToPath(e.instancePath, crd), missing));
      } else if (e.keyword === 'type' || e.keyword === 'anyOf') {
        if (e.keyword === 'type' && anyOfAt.has(e.instancePath)) continue;
        const expected =
          e.keyword === 'type' ? String((e.params as { type: string | string[] }).type) : describeAnyOf(e.schemaPath);
        f = typeInvalid('CRD011', pointerToPath(e.instancePath, crd), valueAt(crd, e.instancePath), expected);
      } else if (e.keyword === 'minimum') {
        f = typeInvalid(
          'CRD011',
          pointerToPath(e.instancePath, crd),
          valueAt(crd, e.instancePath),
          'non-negative integer',
        );
      }
      if (!f) continue;
      const key = `${f.diag.field} ${f.diag.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push(f);
    }
  }
  if (isV1 && crd !== null && typeof crd === 'object') {
    const spec = (crd as Record<string, unknown>).spec;
    if (spec !== null && typeof spec === 'object' && !Array.isArray(spec) && !('versions' in spec)) {
      findings.push(required('CRD010', ['spec', 'versions']));
    }
  }
  return findings;
}

function describeAnyOf(schemaPath: string): string {
  if (schemaPath.endsWith('/items/anyOf')) return 'object or array';
  return 'boolean or object';
}
