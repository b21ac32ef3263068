// Marker value grammar (controller-gen's, the subset crdgen reads):
//   +name                     a flag
//   +name=value               one value: a number, a bool, a "quoted" or `raw` or bare string,
//                             a `;`-separated list, or JSON (for defaults)
//   +name:key=value,key=value named arguments; a bare `key` means key=true
// Pure string functions; positions are added by the caller.

/** A value-parsing failure, with a message for the user. */
export class MarkerSyntaxError extends Error {
  /** Creates the error with a user-facing message. */
  constructor(message: string) {
    super(message);
    this.name = 'MarkerSyntaxError';
  }
}

/**
 * Splits `s` on `sep` at the top level: not inside "…" or `…` strings, nor inside {…} / […].
 * Throws MarkerSyntaxError on an unterminated string or unbalanced braces.
 */
export function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      i = skipQuoted(s, i);
    } else if (c === '`') {
      const end = s.indexOf('`', i + 1);
      if (end < 0) throw new MarkerSyntaxError('unterminated `raw string`');
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth < 0) throw new MarkerSyntaxError(`unbalanced "${c}"`);
    } else if (c === sep && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new MarkerSyntaxError('unbalanced braces');
  parts.push(s.slice(start));
  return parts;
}

/** Index of the closing quote of the "…" string that opens at `i` (backslash escapes honoured). */
function skipQuoted(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') {
      j++;
    } else if (s[j] === '"') {
      return j;
    }
  }
  throw new MarkerSyntaxError('unterminated "quoted string"');
}

/** True when `raw` is a whole "…" or `…` string. */
export function isQuoted(raw: string): boolean {
  const t = raw.trim();
  if (t.length >= 2 && t.startsWith('`') && t.endsWith('`')) return true;
  if (t.length >= 2 && t.startsWith('"')) {
    try {
      return skipQuoted(t, 0) === t.length - 1;
    } catch {
      return false;
    }
  }
  return false;
}

/** A string value: "quoted" (JSON escapes), `raw`, or bare (trimmed). */
export function parseString(raw: string): string {
  const t = raw.trim();
  if (t.startsWith('`')) {
    if (t.length < 2 || !t.endsWith('`')) throw new MarkerSyntaxError('unterminated `raw string`');
    return t.slice(1, -1);
  }
  if (t.startsWith('"')) {
    if (!isQuoted(t)) throw new MarkerSyntaxError(`not a well-formed "quoted string": ${t}`);
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      // fall through to the error below
    }
    throw new MarkerSyntaxError(`bad escape in quoted string: ${t}`);
  }
  return t;
}

/** An integer value. */
export function parseInt32(raw: string): number {
  const t = raw.trim();
  if (!/^-?\d+$/.test(t)) throw new MarkerSyntaxError(`expected an integer, got "${t}"`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw new MarkerSyntaxError(`integer out of range: ${t}`);
  return n;
}

/** A (finite) number value. */
export function parseNumber(raw: string): number {
  const t = raw.trim();
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) throw new MarkerSyntaxError(`expected a number, got "${t}"`);
  return Number(t);
}

/** `true` or `false`. */
export function parseBool(raw: string): boolean {
  const t = raw.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw new MarkerSyntaxError(`expected true or false, got "${t}"`);
}

/** A JSON value (defaults). */
export function parseJson(raw: string): unknown {
  const t = raw.trim();
  try {
    return JSON.parse(t) as unknown;
  } catch {
    throw new MarkerSyntaxError(`not valid JSON: ${t}`);
  }
}

/** One item of a list: `quoted` tells a "…" string from a bare token (which may be a number). */
export interface ListItem {
  text: string;
  quoted: boolean;
}

/** A list: `a;b;c` or `{a,b,c}`; items may be quoted. An empty string is an empty list. */
export function parseList(raw: string): ListItem[] {
  let t = raw.trim();
  let sep = ';';
  if (t.startsWith('{')) {
    if (!t.endsWith('}')) throw new MarkerSyntaxError(`unbalanced list braces: ${t}`);
    t = t.slice(1, -1);
    sep = ',';
  }
  if (t.trim() === '') return [];
  return splitTopLevel(t, sep).map((p) => {
    const quoted = isQuoted(p);
    const text = parseString(p);
    if (!quoted && text === '') throw new MarkerSyntaxError(`empty list item in "${raw.trim()}"`);
    return { text, quoted };
  });
}

/** Named arguments `k=v,k2=v2` (bare `k` means `true`), keys in order of appearance. */
export function parseArgs(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw.trim() === '') return out;
  for (const part of splitTopLevel(raw, ',')) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? 'true' : part.slice(eq + 1);
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(key)) throw new MarkerSyntaxError(`bad argument name "${key}"`);
    if (out.has(key)) throw new MarkerSyntaxError(`argument "${key}" given twice`);
    out.set(key, value);
  }
  return out;
}
