// Paths inside a CRD document, and their three spellings: the apiserver's
// (`properties[spec].type`), our dotted one (`properties.spec.type`) and the
// segments used to find the YAML node.

/** A map key chosen by the user (a property name), as opposed to a field of the CRD API. */
export interface KeySeg {
  key: string;
}

/** One step of a path: a CRD API field name, an array index, or a user key. */
export type Seg = string | number | KeySeg;

/** A path from the document root. */
export type Path = readonly Seg[];

/** The plain key/index of a segment (for walking the parsed object or YAML). */
export function segValue(s: Seg): string | number {
  return typeof s === 'object' ? s.key : s;
}

/**
 * The apiserver's field path (`field.Path.String()`):
 * `spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[deploymentName].type`.
 */
export function apiserverField(path: Path): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'object') out += `[${s.key}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

/**
 * Our dotted path, as the diagnostics show it:
 * `spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.deploymentName.type`;
 * keys that are not simple names are bracketed and quoted (`properties["a.b"]`).
 */
export function dottedPath(path: Path): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else {
      const name = typeof s === 'object' ? s.key : s;
      if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(name)) out += out === '' ? name : `.${name}`;
      else out += `[${JSON.stringify(name)}]`;
    }
  }
  return out;
}

/** Fields of a JSON-schema node whose children are user keys (`properties.<key>`). */
const KEYED_FIELDS = new Set(['properties', 'definitions', 'dependencies', 'patternProperties']);

/**
 * Segments from a JSON pointer (ajv's `instancePath`), marking the child of
 * `properties`/`definitions`/… as a user key and numeric steps under arrays as
 * indices (`isArrayAt` tells whether the value at a prefix is an array).
 */
export function pointerToPath(pointer: string, root: unknown): Seg[] {
  if (pointer === '') return [];
  const raw = pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const out: Seg[] = [];
  let cur: unknown = root;
  let prevKeyed = false;
  for (const p of raw) {
    if (Array.isArray(cur) && /^\d+$/.test(p)) {
      out.push(Number(p));
      cur = cur[Number(p)];
      prevKeyed = false;
      continue;
    }
    if (prevKeyed) {
      out.push({ key: p });
      prevKeyed = false;
    } else {
      out.push(p);
      prevKeyed = KEYED_FIELDS.has(p);
    }
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return out;
}

/** Appends segments to a path (a new array). */
export function child(path: Path, ...segs: Seg[]): Seg[] {
  return [...path, ...segs];
}
