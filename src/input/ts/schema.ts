// TypeScript type syntax → schema nodes. Works on the syntax tree; the checker is asked only
// to resolve a named type reference to its declaration.
import { ts } from 'ts-morph';
import type { ObjectNode, PropertyNode, SchemaNode } from '../../model/types.js';
import { publicName } from '../../model/naming.js';
import { applySchemaMarkers } from './apply-markers.js';
import type { ReadCtx } from './context.js';
import { tsDiag } from './diagnostics.js';

/** The module whose type names the reader maps to built-in schema nodes. */
export const TYPES_MODULE = 'crdgen/types';

/** The pattern controller-gen gives a `resource.Quantity` (what the apiserver then checks). */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** The names of crdgen/types the reader maps to schema nodes (ListMeta is exported but has no schema use). */
export const BUILTIN_TYPE_NAMES: readonly string[] = [
  'int32',
  'int64',
  'integer',
  'float',
  'double',
  'IntOrString',
  'Quantity',
  'Time',
  'MicroTime',
  'Duration',
  'RawExtension',
  'JSONValue',
  'ObjectMeta',
];

/** How to title an anonymous object type: the name of the type it is nested in, plus a suffix. */
export interface TitleHint {
  /** Title of the enclosing named type. */
  parent: string;
  /** Path below it, e.g. `Template` for the property `template`. */
  suffix: string;
}

/** Converts types; one instance per read. */
export class SchemaReader {
  /** Declarations being converted (cycle detection). */
  private readonly stack: ts.Declaration[] = [];
  /** Object nodes of an interface or object type alias → that declaration (their title is its name). */
  readonly origin = new WeakMap<ObjectNode, ts.Declaration>();
  /** Interfaces and aliases converted at least once (their problems are reported). */
  readonly seen = new Set<ts.Declaration>();

  /** @param ctx the read's shared state */
  constructor(private readonly ctx: ReadCtx) {}

  /**
   * The schema of a named interface (its own markers and JSDoc applied). `implied` names (a
   * kind's apiVersion, kind, metadata) are left out when required, and written as controller-gen
   * writes them (a plain string, or an object) when optional.
   */
  interfaceSchema(decl: ts.InterfaceDeclaration, skip: ReadonlySet<string> = new Set()): ObjectNode {
    this.seen.add(decl);
    this.stack.push(decl);
    try {
      const node = this.objectOf(decl, decl.name.text, skip);
      const doc = this.ctx.doc(decl, ['type']);
      if (doc.description !== undefined) node.description = doc.description;
      return applySchemaMarkers(this.ctx, node, doc.markers) as ObjectNode;
    } finally {
      this.stack.pop();
    }
  }

  /** Properties of an interface, its `extends` bases first; `skip` names are left out. */
  objectOf(decl: ts.InterfaceDeclaration, title: string, skip: ReadonlySet<string>): ObjectNode {
    const node: ObjectNode = {
      type: 'object',
      title,
      properties: [],
      preserveUnknownFields: false,
      embeddedResource: false,
      source: this.ctx.pos(decl.name),
    };
    this.origin.set(node, decl);
    if (decl.typeParameters?.length) {
      this.ctx.report(tsDiag('TS003', `generic interface "${title}" cannot be a schema`, this.ctx.pos(decl.name)));
      return node;
    }
    for (const clause of decl.heritageClauses ?? []) {
      for (const base of clause.types) this.inherit(node, base, skip);
    }
    this.members(node, decl.members, title, skip);
    return node;
  }

  private inherit(node: ObjectNode, base: ts.ExpressionWithTypeArguments, skip: ReadonlySet<string>): void {
    const target = ts.isIdentifier(base.expression) ? this.resolve(base.expression) : undefined;
    if (base.typeArguments?.length || !target || !ts.isInterfaceDeclaration(target)) {
      this.ctx.report(
        tsDiag('TS003', `an interface can extend only another non-generic interface`, this.ctx.pos(base)),
      );
      return;
    }
    if (this.stack.includes(target)) {
      this.ctx.report(tsDiag('TS004', `"${target.name.text}" extends itself`, this.ctx.pos(base)));
      return;
    }
    this.stack.push(target);
    try {
      for (const clause of target.heritageClauses ?? []) {
        for (const b of clause.types) this.inherit(node, b, skip);
      }
      this.members(node, target.members, node.title ?? target.name.text, skip);
    } finally {
      this.stack.pop();
    }
  }

  private members(
    node: ObjectNode,
    members: ts.NodeArray<ts.TypeElement>,
    title: string,
    skip: ReadonlySet<string>,
  ): void {
    for (const member of members) {
      if (!ts.isPropertySignature(member)) {
        this.ctx.report(
          tsDiag(
            'TS003',
            `only properties can be part of a schema (found ${memberWord(member)})`,
            this.ctx.pos(member),
          ),
        );
        continue;
      }
      const name = propName(member.name);
      if (name === undefined) {
        this.ctx.report(
          tsDiag('TS003', 'a property name must be an identifier or a string', this.ctx.pos(member.name)),
        );
        continue;
      }
      let prop: PropertyNode | undefined;
      if (skip.has(name)) {
        if (member.questionToken === undefined) continue;
        prop = this.impliedProperty(member, name);
      } else prop = this.property(member, name, title);
      if (!prop) continue;
      const at = node.properties.findIndex((p) => p.name === name);
      if (at >= 0) node.properties[at] = prop;
      else node.properties.push(prop);
    }
  }

  /** An optional apiVersion/kind (a string) or metadata (an object) of a kind, as controller-gen writes it. */
  private impliedProperty(member: ts.PropertySignature, name: string): PropertyNode {
    const doc = this.ctx.doc(member, ['field']);
    let schema: SchemaNode =
      name === 'metadata'
        ? { type: 'object', properties: [], preserveUnknownFields: false, embeddedResource: false }
        : { type: 'string' };
    if (doc.description !== undefined) schema.description = doc.description;
    schema.source = this.ctx.pos(member.name);
    schema = applySchemaMarkers(this.ctx, schema, doc.markers);
    return { name, required: doc.markers.some((m) => m.def.name === 'kubebuilder:validation:Required'), schema };
  }

  /** One property: its type, JSDoc (wins over the type's), markers and optionality. */
  property(member: ts.PropertySignature, name: string, parentTitle: string): PropertyNode | undefined {
    const doc = this.ctx.doc(member, ['field']);
    if (!member.type) {
      this.ctx.report(tsDiag('TS003', `property "${name}" needs a type`, this.ctx.pos(member)));
      return undefined;
    }
    let schema = this.typeOf(member.type, { parent: parentTitle, suffix: publicName(name) });
    if (doc.description !== undefined) schema.description = doc.description;
    schema.source = this.ctx.pos(member.name);
    schema = applySchemaMarkers(this.ctx, schema, doc.markers);
    let required = member.questionToken === undefined;
    for (const m of doc.markers) {
      if (m.def.name === 'optional' || m.def.name === 'kubebuilder:validation:Optional') required = false;
      if (m.def.name === 'kubebuilder:validation:Required') required = true;
    }
    return { name, required, schema };
  }

  /** The schema of a type node. Problems are reported; a placeholder keeps the walk going. */
  typeOf(type: ts.TypeNode, hint: TitleHint): SchemaNode {
    switch (type.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: 'string' };
      case ts.SyntaxKind.NumberKeyword:
        return { type: 'number' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.UnknownKeyword:
        return { type: 'unknown', object: false };
      case ts.SyntaxKind.AnyKeyword:
        return this.unsupported(type, '"any" has no schema', 'use "unknown" (or JSONValue) to keep any JSON value');
      case ts.SyntaxKind.ObjectKeyword:
        return this.unsupported(
          type,
          '"object" has no schema',
          'use RawExtension from crdgen/types for any JSON object',
        );
    }
    if (ts.isParenthesizedTypeNode(type)) return this.typeOf(type.type, hint);
    if (ts.isTypeOperatorNode(type) && type.operator === ts.SyntaxKind.ReadonlyKeyword) {
      return this.typeOf(type.type, hint);
    }
    if (ts.isArrayTypeNode(type)) return { type: 'array', items: this.typeOf(type.elementType, hint) };
    if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) {
      return { type: 'string', enum: [type.literal.text] };
    }
    if (ts.isUnionTypeNode(type)) return this.union(type, hint);
    if (ts.isTypeLiteralNode(type)) return this.typeLiteral(type, hint.parent + hint.suffix);
    if (ts.isTypeReferenceNode(type)) return this.reference(type, hint);
    return this.unsupported(type, `this type has no schema: ${type.getText()}`);
  }

  private unsupported(node: ts.Node, message: string, hint?: string): SchemaNode {
    this.ctx.report(tsDiag('TS003', message, this.ctx.pos(node), hint));
    return { type: 'unknown', object: false };
  }

  private union(type: ts.UnionTypeNode, hint: TitleHint): SchemaNode {
    let nullable = false;
    const rest: ts.TypeNode[] = [];
    for (const t of type.types) {
      if (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) nullable = true;
      else if (t.kind !== ts.SyntaxKind.UndefinedKeyword) rest.push(t);
    }
    let node: SchemaNode;
    const literals = rest.filter((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal));
    if (rest.length > 0 && literals.length === rest.length) {
      node = {
        type: 'string',
        enum: literals.map((t) => ((t as ts.LiteralTypeNode).literal as ts.StringLiteral).text),
      };
    } else if (rest.length === 1) {
      node = this.typeOf(rest[0], hint);
    } else {
      return this.unsupported(
        type,
        `a union of ${rest.map((t) => t.getText()).join(' | ')} has no schema`,
        'only unions of string literals, and "T | null", are supported; use IntOrString for int-or-string',
      );
    }
    if (nullable) node.nullable = true;
    return node;
  }

  private typeLiteral(type: ts.TypeLiteralNode, title: string): SchemaNode {
    const index = type.members.filter(ts.isIndexSignatureDeclaration);
    if (index.length > 0) {
      if (index.length !== type.members.length || index.length > 1) {
        return this.unsupported(type, 'an index signature cannot be mixed with properties', 'use a separate map field');
      }
      return this.indexSignature(index[0], title);
    }
    const node: ObjectNode = {
      type: 'object',
      title,
      properties: [],
      preserveUnknownFields: false,
      embeddedResource: false,
    };
    this.members(node, type.members, title, new Set());
    return node;
  }

  private indexSignature(sig: ts.IndexSignatureDeclaration, title: string): SchemaNode {
    const key = sig.parameters[0]?.type;
    if (!key || key.kind !== ts.SyntaxKind.StringKeyword || !sig.type) {
      return this.unsupported(sig, 'a map needs string keys: [key: string]: T');
    }
    if (sig.type.kind === ts.SyntaxKind.UnknownKeyword) return { type: 'unknown', object: true };
    return { type: 'map', values: this.typeOf(sig.type, { parent: title, suffix: '' }) };
  }

  private reference(type: ts.TypeReferenceNode, hint: TitleHint): SchemaNode {
    const name = type.typeName;
    // a type the parser had to invent after a syntax error (reported as TS001)
    if (ts.isIdentifier(name) && name.text === '') return { type: 'unknown', object: false };
    const builtinName = this.builtinName(name);
    if (builtinName !== undefined) return this.builtin(type, builtinName);
    const target = this.resolve(ts.isIdentifier(name) ? name : name.right);
    const args = type.typeArguments ?? [];
    if (!target) {
      const text = name.getText();
      if (text === 'Array' || text === 'ReadonlyArray') {
        if (args.length !== 1) return this.unsupported(type, `${text} takes one type argument`);
        return { type: 'array', items: this.typeOf(args[0], hint) };
      }
      if (text === 'Record') {
        if (args.length !== 2 || args[0].kind !== ts.SyntaxKind.StringKeyword) {
          return this.unsupported(type, 'a map is Record<string, T>');
        }
        if (args[1].kind === ts.SyntaxKind.UnknownKeyword) return { type: 'unknown', object: true };
        return { type: 'map', values: this.typeOf(args[1], hint) };
      }
      if (args.length > 0) {
        return this.unsupported(
          type,
          `generic type "${type.getText()}" has no schema`,
          'use Array<T>, Record<string, T> or T[]',
        );
      }
      this.ctx.report(
        tsDiag(
          'TS008',
          `cannot find the type "${text}"`,
          this.ctx.pos(type),
          'declare it, or import it from an input file',
        ),
      );
      return { type: 'unknown', object: false };
    }
    if (args.length > 0) {
      return this.unsupported(
        type,
        `generic type "${type.getText()}" has no schema`,
        'use Array<T>, Record<string, T> or T[]',
      );
    }
    if (this.stack.includes(target)) {
      return this.circular(type, target);
    }
    if (ts.isInterfaceDeclaration(target)) return this.interfaceSchema(target);
    if (ts.isTypeAliasDeclaration(target)) return this.alias(target);
    return this.unsupported(
      type,
      `"${name.getText()}" is a ${declWord(target)}; only interfaces and type aliases describe a schema`,
    );
  }

  private circular(type: ts.TypeReferenceNode, target: ts.Declaration): SchemaNode {
    const names = [...this.stack.slice(this.stack.indexOf(target)), target].map(declName).join(' → ');
    this.ctx.report(
      tsDiag('TS004', `circular type: ${names}`, this.ctx.pos(type), 'a CRD schema cannot express recursion'),
    );
    return { type: 'unknown', object: false };
  }

  /** The schema of a type alias (its JSDoc and markers applied). */
  alias(decl: ts.TypeAliasDeclaration): SchemaNode {
    this.seen.add(decl);
    this.stack.push(decl);
    try {
      if (decl.typeParameters?.length) {
        return this.unsupported(decl.name, `generic type alias "${decl.name.text}" cannot be a schema`);
      }
      const doc = this.ctx.doc(decl, ['type']);
      const node = this.typeOf(decl.type, { parent: decl.name.text, suffix: '' });
      if (node.type === 'object' && ts.isTypeLiteralNode(unwrap(decl.type))) {
        node.title = decl.name.text;
        node.source = this.ctx.pos(decl.name);
        this.origin.set(node, decl);
      }
      if (doc.description !== undefined) node.description = doc.description;
      return applySchemaMarkers(this.ctx, node, doc.markers);
    } finally {
      this.stack.pop();
    }
  }

  /** The crdgen/types name a reference stands for, or undefined. */
  private builtinName(name: ts.EntityName): string | undefined {
    if (ts.isQualifiedName(name)) {
      if (!ts.isIdentifier(name.left)) return undefined;
      const sym = this.ctx.checker.getSymbolAtLocation(name.left);
      const decl = sym?.declarations?.[0];
      if (decl && ts.isNamespaceImport(decl) && moduleOf(decl.parent.parent) === TYPES_MODULE) return name.right.text;
      return undefined;
    }
    const sym = this.ctx.checker.getSymbolAtLocation(name);
    const decl = sym?.declarations?.[0];
    if (decl && ts.isImportSpecifier(decl) && moduleOf(decl.parent.parent.parent) === TYPES_MODULE) {
      return (decl.propertyName ?? decl.name).text;
    }
    return undefined;
  }

  private builtin(type: ts.TypeReferenceNode, name: string): SchemaNode {
    switch (name) {
      case 'int32':
      case 'int64':
        return { type: 'integer', format: name };
      case 'integer':
        return { type: 'integer' };
      case 'float':
      case 'double':
        return { type: 'number', format: name };
      // written as controller-gen writes them (the anyOf and the pattern are keywords of the
      // schema, not of the typed view)
      case 'IntOrString':
        return { type: 'int-or-string', keywords: { anyOf: [{ type: 'integer' }, { type: 'string' }] } };
      case 'Quantity':
        return {
          type: 'int-or-string',
          keywords: { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN },
        };
      case 'Time':
      case 'MicroTime':
        return { type: 'string', format: 'date-time' };
      case 'Duration':
        return { type: 'string' };
      case 'RawExtension':
        return { type: 'unknown', object: true };
      case 'JSONValue':
        return { type: 'unknown', object: false };
      case 'ObjectMeta':
        // titled by path like any anonymous object (see titles.ts); an embedded resource's is untitled
        return { type: 'object', properties: [], preserveUnknownFields: false, embeddedResource: false };
      default:
        return this.unsupported(type, `"${name}" from ${TYPES_MODULE} has no schema here`);
    }
  }

  /** The interface or type alias (or other declaration) a name refers to, through imports. */
  resolve(id: ts.Identifier): ts.Declaration | undefined {
    let sym = this.ctx.checker.getSymbolAtLocation(id);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = this.ctx.checker.getAliasedSymbol(sym);
    const decls = sym?.declarations ?? [];
    return decls.find((d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d)) ?? decls[0];
  }
}

function unwrap(t: ts.TypeNode): ts.TypeNode {
  while (ts.isParenthesizedTypeNode(t)) t = t.type;
  return t;
}

/** The module specifier of an import declaration. */
function moduleOf(node: ts.Node): string | undefined {
  return ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)
    ? node.moduleSpecifier.text
    : undefined;
}

/** The text of a property name, for identifiers and string literals. */
export function propName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

function declName(d: ts.Declaration): string {
  const n = (d as ts.Declaration & { name?: ts.Node }).name;
  return n && ts.isIdentifier(n) ? n.text : '?';
}

function declWord(d: ts.Declaration): string {
  if (ts.isClassDeclaration(d)) return 'class';
  if (ts.isEnumDeclaration(d)) return 'enum';
  if (ts.isFunctionDeclaration(d)) return 'function';
  if (ts.isVariableDeclaration(d)) return 'variable';
  if (ts.isModuleDeclaration(d)) return 'namespace';
  return ts.SyntaxKind[d.kind];
}

function memberWord(m: ts.TypeElement): string {
  if (ts.isMethodSignature(m)) return 'a method';
  if (ts.isIndexSignatureDeclaration(m))
    return 'an index signature; a map is Record<string, T> or a { [key: string]: T } type';
  if (ts.isCallSignatureDeclaration(m)) return 'a call signature';
  if (ts.isConstructSignatureDeclaration(m)) return 'a construct signature';
  return 'a ' + ts.SyntaxKind[m.kind];
}
