// The fast path of the YAML load: js-yaml (no syntax tree kept, ~5x faster than building
// `yaml`'s documents) with a schema that resolves plain scalars exactly as `yaml`'s YAML 1.2
// core schema does. It declines (returns undefined) whenever its result could differ from the
// position-keeping parse in yaml-source.ts, which then runs instead: a syntax error or
// duplicate key (that parse words the diagnostic), an anchor (aliases are expanded there under
// an alias budget), an explicit tag, a directive, an empty or null document, or a key that
// `yaml` would spell differently (`null`, a collection as a key).

import jsyaml from 'js-yaml';

/** Thrown by the schema's explicit-tag types: a tagged node is left to the full parse. */
class Declined extends Error {}

const decline = (): never => {
  throw new Declined('explicit tag');
};

// yaml's core schema (yaml/dist/schema/core), in its resolution order: null, bool, int (octal,
// decimal, hex), float (nan/inf, exponent, plain).
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** An implicit (plain scalar) type; called with a tag, it is an explicit `!!x` and declines. */
function implicit(tag: string, test: (s: string) => boolean, construct: (s: string) => unknown): jsyaml.Type {
  return new jsyaml.Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (data: unknown, explicitTag?: string) =>
      explicitTag !== undefined ? decline() : typeof data === 'string' && test(data),
    construct: (data: string) => construct(data),
  });
}

/** `!!str`, `!!seq`, `!!map`: only ever reached through an explicit tag. */
function explicitOnly(tag: string, kind: 'scalar' | 'sequence' | 'mapping'): jsyaml.Type {
  return new jsyaml.Type(`tag:yaml.org,2002:${tag}`, { kind, resolve: decline });
}

const SCHEMA = new jsyaml.Schema({
  explicit: [explicitOnly('str', 'scalar'), explicitOnly('seq', 'sequence'), explicitOnly('map', 'mapping')],
  implicit: [
    implicit(
      'null',
      (s) => NULL.test(s),
      () => null,
    ),
    implicit(
      'bool',
      (s) => BOOL.test(s),
      (s) => s[0] === 't' || s[0] === 'T',
    ),
    implicit(
      'int',
      (s) => INT_OCT.test(s) || INT.test(s) || INT_HEX.test(s),
      (s) => (s[1] === 'o' ? parseInt(s.slice(2), 8) : s[1] === 'x' ? parseInt(s.slice(2), 16) : parseInt(s, 10)),
    ),
    implicit(
      'float',
      (s) => FLOAT_NAN.test(s) || FLOAT_EXP.test(s) || FLOAT.test(s),
      (s) =>
        FLOAT_NAN.test(s)
          ? s.slice(-3).toLowerCase() === 'nan'
            ? NaN
            : s[0] === '-'
              ? -Infinity
              : Infinity
          : parseFloat(s),
    ),
  ],
});

/** True when some key of `v` (recursively) is `null`: js-yaml's spelling of a null key, which `yaml` spells `""`. */
function hasNullKey(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) {
    for (const x of v) if (hasNullKey(x)) return true;
    return false;
  }
  for (const k in v) {
    if (k === 'null') return true;
    if (hasNullKey((v as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * The documents of `text` as plain values, or undefined when the full parse must decide
 * (see the file comment). A defined result equals what `yaml`'s `parseAllDocuments` +
 * `toJS` give for the same text, document for document.
 */
export function fastLoadAll(text: string): unknown[] | undefined {
  if (/^%/m.test(text)) return undefined; // %YAML / %TAG directives
  let odd = false;
  const options: jsyaml.LoadOptions = { schema: SCHEMA };
  // The listener (called for every node) only runs when the text could hold an anchor (`&`) or
  // a collection as a key (`? …`, `[a]: …`, `{a: 1}: …`).
  if (text.includes('&') || /(?:^|[\s,{[])\?(?:\s|$)/m.test(text) || /[\]}]\s*:(?:\s|$)/.test(text)) {
    options.listener = (event, state) => {
      if (event !== 'close' || odd) return;
      const st = state as { anchor?: string | null; kind?: string | null; input: string; position: number };
      if (
        st.anchor != null ||
        ((st.kind === 'mapping' || st.kind === 'sequence') && colonFollows(st.input, st.position))
      )
        odd = true;
    };
  }
  let docs: unknown[];
  try {
    docs = jsyaml.loadAll(text, null, options);
  } catch {
    return undefined;
  }
  if (odd) return undefined;
  for (const d of docs) if (d === null || d === undefined || hasNullKey(d)) return undefined;
  return docs;
}

/** True when the next token after `pos` (past spaces, line breaks and comments) is a `:` indicator. */
function colonFollows(text: string, pos: number): boolean {
  let i = pos;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i++;
    else if (c === '#') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return false;
      i = nl + 1;
    } else break;
  }
  if (text[i] !== ':') return false;
  const next = text[i + 1];
  return (
    next === undefined ||
    next === ' ' ||
    next === '\t' ||
    next === '\r' ||
    next === '\n' ||
    next === ',' ||
    next === ']' ||
    next === '}'
  );
}
