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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What {@link validFieldPath} finds: the normalized path's segments and the schema it points at. */
export interface FoundField {
  /** Named steps (`child`) and map keys (`key`), as the apiserver's field.Path records them. */
  steps: { name: string; key: boolean }[];
  schema: Obj | undefined;
}

/** Go's unescapeSingleQuote for a `['…']` step. */
function unescapeSingleQuote(s: string): string {
  const map: Record<string, string> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    "'": "'",
    '\\': '\\',
  };
  return s.replace(/\\(.)/gs, (m, c: string) => {
    const r = map[c];
    if (r === undefined) throw new Error(`invalid string literal: invalid escape char ${m}`);
    return r;
  });
}

/**
 * apiextensions' cel.ValidFieldPath: a rule's fieldPath (or a selectable field's jsonPath) —
 * `.a.b`, `.a['b.c']` — checked against a structural schema (raw JSON). Throws an Error with the
 * apiserver's message when the path does not refer to a field.
 */
export function validFieldPath(
  jsonPath: string,
  schema: unknown,
  options: { allowArrayNotation?: boolean } = {},
): FoundField {
  const allowArrays = options.allowArrayNotation ?? true;
  // the apiserver's tokenizer: single-quoted strings, and the delimiters . [ ]
  const tokens: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    if (jsonPath[i] === "'") {
      let j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      if (j >= jsonPath.length) {
        tokens.push(jsonPath.slice(i));
        break;
      }
      tokens.push(jsonPath.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if ('.[]'.includes(jsonPath[i])) {
      tokens.push(jsonPath[i]);
      i++;
      continue;
    }
    // (a quote inside a token does not start a string: only a token's first character can)
    let j = i;
    while (j < jsonPath.length && !'.[]'.includes(jsonPath[j])) j++;
    tokens.push(jsonPath.slice(i, j));
    i = j;
  }
  const steps: FoundField['steps'] = [];
  let cur: Obj | undefined = isObj(schema) ? schema : undefined;
  const hasProps = (s: Obj | undefined): boolean => !!s && isObj(s.properties) && Object.keys(s.properties).length > 0;
  const hasAddl = (s: Obj | undefined): boolean => !!s && s.additionalProperties !== undefined;
  const step = (name: string): void => {
    if (hasProps(cur)) {
      steps.push({ name, key: false });
      const next = (cur!.properties as Obj)[name];
      if (!Object.hasOwn(cur!.properties as Obj, name) || !isObj(next))
        throw new Error('does not refer to a valid field');
      cur = next;
    } else if (hasAddl(cur)) {
      steps.push({ name, key: true });
      const ap = cur!.additionalProperties;
      cur = isObj(ap) ? ap : undefined;
    } else throw new Error('does not refer to a valid field');
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t];
    if (tok === '[') {
      if (!allowArrays) throw new Error('array notation is not allowed');
      const q = tokens[++t];
      if (q === undefined) throw new Error('unexpected end of JSON path');
      if (q.length < 2 || q[0] !== "'" || q[q.length - 1] !== "'")
        throw new Error(`expected single quoted string but got ${q}`);
      step(unescapeSingleQuote(q.slice(1, -1)));
      const close = tokens[++t];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = tokens[++t];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      step(name);
    } else throw new Error(`expected [ or . but got: ${tok}`);
  }
  return { steps, schema: cur };
}
