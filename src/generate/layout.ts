// Layout of the generated constructs whose width depends on input names: import lists,
// parameter and argument lists, array literals, and the type expressions of interface
// members (unions of enum values, arrays, records). Each builds the document prettier builds
// for that construct, so `prettier --check` with default options leaves the output unchanged.

import {
  align,
  group,
  ifBreak,
  indent,
  join,
  line,
  printDoc,
  softline,
  textWidth,
  PRINT_WIDTH,
  type Doc,
} from './doc.js';
import type { ImportTracker } from '../emit/code.js';
import { tsString } from '../model/naming.js';

/** A type expression as the types emitter builds it. */
export type TypeExpr =
  | { kind: 'ref'; text: string }
  | { kind: 'keyword'; text: string }
  | { kind: 'literal'; text: string }
  | { kind: 'anyObject' }
  | { kind: 'array'; item: TypeExpr }
  | { kind: 'record'; value: TypeExpr }
  | { kind: 'union'; members: TypeExpr[] };

/** The one-line text of a type expression. */
export function typeText(t: TypeExpr): string {
  switch (t.kind) {
    case 'ref':
    case 'keyword':
    case 'literal':
      return t.text;
    case 'anyObject':
      return '{ [key: string]: unknown }';
    case 'array':
      return t.item.kind === 'union' ? `(${typeText(t.item)})[]` : `${typeText(t.item)}[]`;
    case 'record':
      return `Record<string, ${typeText(t.value)}>`;
    case 'union':
      return t.members.map(typeText).join(' | ');
  }
}

/** `T | null` (and only null besides) where T is a type reference or object type: prettier never breaks it. */
function isHugUnion(t: TypeExpr): boolean {
  if (t.kind !== 'union') return false;
  const rest = t.members.filter((m) => !(m.kind === 'keyword' && m.text === 'null'));
  return rest.length === 1 && (rest[0].kind === 'ref' || rest[0].kind === 'record' || rest[0].kind === 'anyObject');
}

function unionBody(t: Extract<TypeExpr, { kind: 'union' }>): Doc {
  return [
    ifBreak('| '),
    join(
      [line, '| '],
      t.members.map((m) => align(2, typeDoc(m))),
    ),
  ];
}

/** prettier's document for a type expression (not in an annotation position). */
export function typeDoc(t: TypeExpr): Doc {
  switch (t.kind) {
    case 'ref':
    case 'keyword':
    case 'literal':
      return t.text;
    case 'anyObject':
      return group(['{', indent([line, '[key: string]: unknown', ifBreak(';')]), line, '}']);
    case 'array':
      if (t.item.kind === 'union') {
        if (isHugUnion(t.item)) return ['(', join(' | ', t.item.members.map(typeDoc)), ')[]'];
        return ['(', group([indent([softline, group(unionBody(t.item))]), softline]), ')[]'];
      }
      return [typeDoc(t.item), '[]'];
    case 'record':
      return ['Record<', group([indent([softline, 'string,', line, typeDoc(t.value)]), softline]), '>'];
    case 'union':
      if (isHugUnion(t)) return join(' | ', t.members.map(typeDoc));
      return group(unionBody(t));
  }
}

/**
 * An interface member `key?: type;` at `indentWidth` spaces, laid out as prettier does
 * (a long union moves below the key, then breaks one member per line). No trailing newline.
 */
export function memberLine(indentWidth: number, key: string, type: TypeExpr): string {
  const pad = ' '.repeat(indentWidth);
  const doc: Doc =
    type.kind === 'union' && !isHugUnion(type)
      ? [key, ':', group(indent([line, group(unionBody(type))])), ';']
      : [key, ': ', typeDoc(type), ';'];
  return pad + printDoc(doc, indentWidth);
}

/** `items` between `open` and `close`, one line when it fits, else one item per line with a trailing comma. */
function listDoc(open: string, items: readonly Doc[], close: string, trailingComma = true): Doc {
  if (items.length === 0) return [open, close];
  return group([
    open,
    indent([softline, join([',', line], items)]),
    trailingComma ? ifBreak(',') : '',
    softline,
    close,
  ]);
}

/**
 * An import declaration: `import { a, type B } from "x";`, broken one specifier per line
 * when longer than 80 columns (a single specifier never breaks). `from` is a quoted literal.
 */
export function importDecl(specifiers: readonly string[], from: string, typeOnly = false): string {
  const head = typeOnly ? 'import type ' : 'import ';
  if (specifiers.length === 0) return `${head}{} from ${from};`;
  if (specifiers.length === 1) return `${head}{ ${specifiers[0]} } from ${from};`;
  return printDoc([
    head,
    group(['{', indent([line, join([',', line], specifiers)]), ifBreak(','), line, '}']),
    ' from ',
    from,
    ';',
  ]);
}

/** The import declarations of `imports`, each laid out by {@link importDecl}: what every emitter writes at the top of a file. */
export function importLines(imports: ImportTracker): string {
  return imports.declarations(
    (specifiers, module, typeOnly) => importDecl(specifiers, tsString(module), typeOnly),
    (local, module) => `import * as ${local} from ${tsString(module)};`,
  );
}

/**
 * `head(a, b)tail` at `indentWidth` spaces: a parameter list (or call arguments) broken one
 * per line with a trailing comma when the whole line exceeds 80 columns. When `head` is an
 * assignment (`const x = f`) whose text up to `(` does not fit, the right side moves to the
 * next line first (prettier's fluid layout). No newline at the end.
 */
export function callLine(indentWidth: number, head: string, items: readonly string[], tail: string): string {
  const pad = ' '.repeat(indentWidth);
  const eq = head.indexOf(' = ');
  if (eq >= 0 && !fitsLine(indentWidth, `${head}(`)) {
    const lhs = head.slice(0, eq);
    return `${pad}${lhs} =\n${callLine(indentWidth + 2, head.slice(eq + 3), items, tail)}`;
  }
  return pad + printDoc([head, listDoc('(', items, ')'), tail], indentWidth);
}

/**
 * prettier's document for a type reference such as `Promise<TypedWatch<Stored<K, "Namespaced">>>`:
 * each level's type arguments break onto their own lines (no trailing comma), outermost first.
 * Only names, string literals and `<`, `,` are understood (what generated signatures use).
 */
export function typeRefDoc(text: string): Doc {
  if (text.endsWith('[]')) return [typeRefDoc(text.slice(0, -2)), '[]'];
  const lt = text.indexOf('<');
  if (lt < 0 || !text.endsWith('>')) return text;
  const inner = text.slice(lt + 1, -1);
  const args: string[] = [];
  let depth = 0;
  let start = 0;
  let quote = false;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '"') quote = !quote;
    else if (quote) continue;
    else if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (c === ',' && depth === 0) {
      args.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  args.push(inner.slice(start).trim());
  // one argument that is a plain name or keyword (`Promise<void>`, `ApplyConfigurationFor<Foo>`): prettier never breaks it
  if (args.length === 1 && !args[0].includes('<')) return text;
  return [text.slice(0, lt), listDoc('<', args.map(typeRefDoc), '>', false)];
}

/**
 * `head(a, b): Type<…>end` at `indentWidth` spaces (a method signature or head): the parameters
 * break first, then the return type's type arguments ({@link typeRefDoc}), as prettier does.
 */
export function signatureLine(
  indentWidth: number,
  head: string,
  params: readonly string[],
  returnType: string,
  end: string,
): string {
  // prettier groups the parameters with the return type (not on their own): when the line is too
  // long the parameters break, and the return type's type arguments only if still too long
  // a parameter `name: Type<…>` whose type is too long for its line breaks inside the type arguments
  const param = (p: string): Doc => {
    const colon = p.indexOf(': ');
    return colon < 0 ? p : [p.slice(0, colon + 2), typeRefDoc(p.slice(colon + 2))];
  };
  const paramsDoc: Doc =
    params.length === 0
      ? '()'
      : ['(', indent([softline, join([',', line], params.map(param))]), ifBreak(','), softline, ')'];
  return ' '.repeat(indentWidth) + printDoc(group([head, paramsDoc, ': ', typeRefDoc(returnType), end]), indentWidth);
}

/** `head<A, B>tail` at `indentWidth` spaces: type arguments broken one per line (no trailing comma) when too long. */
export function typeArgsLine(indentWidth: number, head: string, args: readonly string[], tail: string): string {
  return ' '.repeat(indentWidth) + printDoc([head, listDoc('<', args.map(typeRefDoc), '>', false), tail], indentWidth);
}

/**
 * `export interface Name extends A, B {}` at `indentWidth` spaces as prettier breaks it: one
 * line; else `extends …` on the next line; else one type per line. A single extended type never
 * breaks.
 */
export function interfaceExtends(indentWidth: number, head: string, types: readonly string[], body: string): string {
  const pad = ' '.repeat(indentWidth);
  if (types.length === 0) return `${pad}${head} ${body}`;
  const flat = `${head} extends ${types.join(', ')} ${body}`;
  if (types.length === 1 || fitsLine(indentWidth, flat)) return pad + flat;
  const second = `  extends ${types.join(', ')} ${body}`;
  if (fitsLine(indentWidth, second)) return `${pad}${head}\n${pad}${second}`;
  return `${pad}${head}\n${pad}  extends\n${types.map((t) => `${pad}    ${t}`).join(',\n')} ${body}`;
}

/**
 * `key: value,` in an expanded object at `indentWidth` spaces, for a value that cannot break
 * (a string literal): moved to the next line when too long and the key is 5 columns or more
 * (prettier's break-after-operator layout). No newline at the end.
 */
export function propertyLine(indentWidth: number, key: string, value: string): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${key}: ${value},`;
  return fitsLine(indentWidth, flat) || textWidth(key) < 5 ? pad + flat : `${pad}${key}:\n${pad}  ${value},`;
}

/**
 * `lhs = fn(arg);` at `indentWidth` spaces, broken after `=` and then inside the call as prettier
 * does; a bracketed left side (`out["key"]`) too long for its line is broken inside the brackets.
 */
export function assignCallLines(indentWidth: number, lhs: string, fn: string, arg: string): string {
  const pad = ' '.repeat(indentWidth);
  if (fitsLine(indentWidth, `${lhs} = ${fn}(${arg});`)) return `${pad}${lhs} = ${fn}(${arg});`;
  let left = `${pad}${lhs}`;
  const bracket = /^(\w+)\[(.+)\]$/.exec(lhs);
  if (bracket && !fitsLine(indentWidth, `${lhs} =`)) {
    left = `${pad}${bracket[1]}[\n${pad}  ${bracket[2]}\n${pad}]`;
    if (fitsLine(indentWidth, `] = ${fn}(${arg});`)) return `${left} = ${fn}(${arg});`;
  }
  const pad2 = ' '.repeat(indentWidth + 2);
  if (fitsLine(indentWidth + 2, `${fn}(${arg});`)) return `${left} =\n${pad2}${fn}(${arg});`;
  return `${left} =\n${pad2}${fn}(\n${pad2}  ${arg},\n${pad2});`;
}

/**
 * `<head>object.call().call()…;` at `indentWidth` spaces: flat when it fits, else prettier's
 * expanded member chain (one call per line), which it uses for chains of three calls or more.
 */
export function chainStatement(indentWidth: number, head: string, object: string, calls: readonly string[]): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${head}${object}.${calls.join('.')};`;
  if (fitsLine(indentWidth, flat) || calls.length < 3) return pad + flat;
  return `${pad}${head}${object}\n${calls.map((c) => `${pad}  .${c}`).join('\n')};`;
}

/** True when `text` (one line) fits in prettier's print width at `indentWidth` spaces. */
export function fitsLine(indentWidth: number, text: string): boolean {
  return indentWidth + textWidth(text) <= PRINT_WIDTH;
}

/**
 * An array literal of scalar literals after `prefix` (text already on the line, starting
 * at `indentWidth`) and followed by `suffix` on the same line: `[a, b]` when it fits; else one
 * element per line, or — for numbers — as many per line as fit (prettier's fill).
 */
export function scalarArray(
  indentWidth: number,
  prefix: string,
  items: readonly string[],
  suffix: string,
  numeric: boolean,
): string {
  if (items.length === 0) return `${prefix}[]${suffix}`;
  const flat = `${prefix}[${items.join(', ')}]${suffix}`;
  if (fitsLine(indentWidth, flat)) return flat;
  const inner = ' '.repeat(indentWidth + 2);
  if (!numeric)
    return `${prefix}[\n${items.map((i) => `${inner}${i},\n`).join('')}${' '.repeat(indentWidth)}]${suffix}`;
  const lines: string[] = [];
  let cur = '';
  for (let i = 0; i < items.length; i++) {
    const item = `${items[i]},`;
    if (cur === '') cur = item;
    else if (fitsLine(indentWidth + 2, `${cur} ${item}`)) cur += ` ${item}`;
    else {
      lines.push(cur);
      cur = item;
    }
  }
  lines.push(cur);
  return `${prefix}[\n${lines.map((l) => `${inner}${l}\n`).join('')}${' '.repeat(indentWidth)}]${suffix}`;
}

/**
 * `head = value;` at `indentWidth` spaces for a value that cannot break (a string literal):
 * on one line when it fits, else the value on the next line, indented (prettier's
 * break-after-operator layout). No newline at the end.
 */
export function assignLine(indentWidth: number, head: string, value: string): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${head} = ${value};`;
  return fitsLine(indentWidth, flat) ? pad + flat : `${pad}${head} =\n${pad}  ${value};`;
}
