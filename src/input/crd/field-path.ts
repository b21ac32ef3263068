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
 * Our dotted path, as diagnostics show it:
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
 * indices (looked up in `root`: a numeric step is an index only where the value is an array).
 */
export function pointerToPath(pointer: string, root: unknown): Seg[] {
  if (pointer === '') return [];
  const raw = pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const typed: (string | number)[] = [];
  let cur: unknown = root;
  for (const p of raw) {
    const index = Array.isArray(cur) && /^\d+$/.test(p);
    typed.push(index ? Number(p) : p);
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return keyedPath(typed);
}

/**
 * Segments (strings are field names or keys, numbers are indices) as a path: the child of
 * `properties`/`definitions`/… is a user key.
 */
export function keyedPath(segments: readonly (string | number)[]): Seg[] {
  const out: Seg[] = [];
  let prevKeyed = false;
  for (const s of segments) {
    if (typeof s === 'number') {
      out.push(s);
      prevKeyed = false;
    } else if (prevKeyed) {
      out.push({ key: s });
      prevKeyed = false;
    } else {
      out.push(s);
      prevKeyed = KEYED_FIELDS.has(s);
    }
  }
  return out;
}

/** Appends segments to a path (a new array). */
export function child(path: Path, ...segs: Seg[]): Seg[] {
  return [...path, ...segs];
}
