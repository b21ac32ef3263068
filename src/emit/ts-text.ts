// Target-aware text helpers for emitted TypeScript: JSDoc blocks, literals and
// relative import paths. Templates reach these through the handlebars helpers.

import { posix } from 'node:path';
import { numberLiteral, propertyKey, tsString } from '../model/naming.js';

/** What {@link jsdoc} replaces or drops: CR, U+2028/U+2029, control characters and tabs, a star-slash. */
const NEEDS_CLEANING = /[\r\u2028\u2029\u0000-\u0009\u000b-\u001f\u007f]|\*\//;

/**
 * A JSDoc block for `text`, indented by `indent`, or `''` when the text is empty.
 * A star-slash in the text can never close the comment early (it becomes `*\/`), line breaks of any
 * kind (CRLF, U+2028/U+2029) split lines, and other control characters are dropped.
 * Trailing whitespace is trimmed on each line. Ends with a newline.
 */
export function jsdoc(text: string | undefined, indent = ''): string {
  if (text === undefined) return '';
  // most descriptions need no cleaning: one scan decides, instead of one per replacement
  const cleaned = NEEDS_CLEANING.test(text)
    ? text
        .replace(/\r\n?|[\u2028\u2029]/g, '\n')
        .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
        .replace(/\*\//g, '*\\/')
        .replace(/\t/g, '  ')
    : text;
  // trimEnd removes what /\s+$/ would (white space and line terminators), without a regex per line
  const lines = cleaned.split('\n');
  let first = 0;
  let end = lines.length;
  while (first < end && lines[first].trimEnd() === '') first++;
  while (end > first && lines[end - 1].trimEnd() === '') end--;
  if (first === end) return '';
  let body = '';
  for (let i = first; i < end; i++) {
    const l = lines[i].trimEnd();
    if (i > first) body += '\n';
    body += l === '' ? `${indent} *` : `${indent} * ${l}`;
  }
  return `${indent}/**\n${body}\n${indent} */\n`;
}

/**
 * A TypeScript expression for a JSON value: strings via {@link tsString}, keys
 * via {@link propertyKey}, `__proto__` keys written as computed keys so they
 * define an own property instead of setting the prototype. Non-finite numbers
 * and non-JSON values throw (they never come out of YAML/JSON input).
 */
export function literal(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return tsString(value);
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`literal: non-finite number ${value}`);
      return numberLiteral(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return '{}';
      const parts = entries.map(
        ([k, v]) => `${k === '__proto__' ? `[${tsString(k)}]` : propertyKey(k)}: ${literal(v)}`,
      );
      return `{ ${parts.join(', ')} }`;
    }
    default:
      throw new Error(`literal: unsupported value of type ${typeof value}`);
  }
}

/**
 * Relative ESM import specifier from generated file `from` to generated file
 * `to` (both POSIX paths relative to the output root), with `.ts` replaced by
 * `.js`: `importPath('apis/g/v1/deepcopy.ts', 'apis/g/v1/types.ts')` → `'./types.js'`.
 */
export function importPath(from: string, to: string): string {
  let rel = posix.relative(posix.dirname(from), to);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel.replace(/\.(m?)ts$/, '.$1js').replace(/\.d\.js$/, '.js');
}
