// A kind's interface → a model Kind: names, scope, subresources, printer columns and verbs
// from its markers; the schema from its properties (apiVersion, kind and metadata are implied).
import { ts } from 'ts-morph';
import type { Kind, PrinterColumn, Scope, Verb } from '../../model/types.js';
import type { ReadCtx } from './context.js';
import { tsDiag } from './diagnostics.js';
import type { ListItem } from './marker-grammar.js';
import type { ParsedMarker } from './markers.js';
import { propName, type SchemaReader } from './schema.js';
import { verbsOf } from './verbs.js';
import { isKindName, pluralName } from '../../model/naming.js';

/** Properties every kind has, which the apiserver implies; they are not part of the schema. */
export const IMPLIED_PROPERTIES: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/** A kind as read, before versions are merged. */
export interface KindDecl {
  kind: Kind;
  group: string;
  version: string;
  /** `+kubebuilder:storageversion` was given. */
  storageMarker: boolean;
  decl: ts.InterfaceDeclaration;
}

/** The string literal type of property `name`, if the interface declares it so. */
export function literalProperty(decl: ts.InterfaceDeclaration, name: string): string | undefined {
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || propName(m.name) !== name || !m.type) continue;
    if (ts.isLiteralTypeNode(m.type) && ts.isStringLiteral(m.type.literal)) return m.type.literal.text;
  }
  return undefined;
}

/** True when the interface is a kind: it declares `kind` as a string literal (and is not a List). */
export function isKindInterface(decl: ts.InterfaceDeclaration): boolean {
  return literalProperty(decl, 'kind') !== undefined && !isListInterface(decl);
}

/** True for a hand-written list type (`kind: 'FooList'` and `items`): lists are generated, so it is skipped. */
export function isListInterface(decl: ts.InterfaceDeclaration): boolean {
  const kind = literalProperty(decl, 'kind');
  const hasItems = decl.members.some((m) => ts.isPropertySignature(m) && propName(m.name) === 'items');
  return kind !== undefined && kind.endsWith('List') && hasItems;
}

/** Reads one kind interface; `gv` is the group/version its file's markers give, if any. */
export function readKind(
  ctx: ReadCtx,
  schemas: SchemaReader,
  decl: ts.InterfaceDeclaration,
  gv: { group?: string; version?: string },
): KindDecl | undefined {
  const name = decl.name.text;
  const doc = ctx.doc(decl, ['kind', 'type']);
  const kindLit = literalProperty(decl, 'kind')!;
  if (!isKindName(name)) {
    ctx.report(
      tsDiag('TS010', `kind ${name} must be an UpperCamelCase identifier (letters and digits)`, ctx.pos(decl.name)),
    );
    return undefined;
  }
  if (kindLit !== name) {
    ctx.report(tsDiag('TS010', `interface ${name} declares kind '${kindLit}'; they must be equal`, ctx.pos(decl.name)));
    return undefined;
  }
  const apiVersion = literalProperty(decl, 'apiVersion');
  let group = gv.group;
  let version = gv.version;
  if (apiVersion === undefined) {
    ctx.report(
      tsDiag(
        'TS010',
        `kind ${name} needs "apiVersion: '<group>/<version>'"`,
        ctx.pos(decl.name),
        'declare it as a string literal',
      ),
    );
    return undefined;
  }
  const slash = apiVersion.lastIndexOf('/');
  const litGroup = slash < 0 ? '' : apiVersion.slice(0, slash);
  const litVersion = apiVersion.slice(slash + 1);
  group ??= litGroup;
  version ??= litVersion;
  if (group !== litGroup || version !== litVersion) {
    ctx.report(
      tsDiag(
        'TS009',
        `kind ${name} has apiVersion '${apiVersion}' but its markers say ${group}/${version}`,
        ctx.pos(decl.name),
      ),
    );
    return undefined;
  }
  if (!/^v\d+((alpha|beta)\d+)?$/.test(version)) {
    ctx.report(
      tsDiag('TS009', `"${version}" is not a Kubernetes version (v1, v1beta1, v2alpha1…)`, ctx.pos(decl.name)),
    );
    return undefined;
  }
  checkMetadata(ctx, decl);

  const schema = schemas.interfaceSchema(decl, IMPLIED_PROPERTIES);
  const has = (n: string): ParsedMarker | undefined => doc.markers.find((m) => m.def.name === n);
  const all = (n: string): ParsedMarker[] => doc.markers.filter((m) => m.def.name === n);

  const resource = args(has('kubebuilder:resource'));
  let scope: Scope = 'Namespaced';
  const scopeArg = resource.get('scope');
  if (scopeArg !== undefined) {
    if (scopeArg !== 'Namespaced' && scopeArg !== 'Cluster') {
      ctx.report(
        tsDiag(
          'TS007',
          `scope is Namespaced or Cluster, not "${typeof scopeArg === 'string' ? scopeArg : JSON.stringify(scopeArg)}"`,
          has('kubebuilder:resource')!.pos,
        ),
      );
    } else scope = scopeArg;
  }
  const nonNs = has('genclient:nonNamespaced');
  if (nonNs) {
    if (scopeArg === 'Namespaced') {
      ctx.report(tsDiag('TS011', `+genclient:nonNamespaced contradicts scope=Namespaced`, nonNs.pos));
    }
    scope = 'Cluster';
  }

  const kind: Kind = {
    kind: name,
    listKind: `${name}List`,
    plural: stringArg(resource, 'path') ?? pluralName(name).toLowerCase(),
    singular: stringArg(resource, 'singular') ?? name.toLowerCase(),
    shortNames: listArg(resource, 'shortName'),
    categories: listArg(resource, 'categories'),
    scope,
    served: !has('kubebuilder:unservedversion'),
    storage: true,
    deprecated: false,
    subresources: { status: !!has('kubebuilder:subresource:status') },
    printerColumns: all('kubebuilder:printcolumn').map((m) => printerColumn(args(m))),
    verbs: [],
    schema,
    source: ctx.pos(decl.name),
  };
  const dep = has('kubebuilder:deprecatedversion');
  if (dep) {
    kind.deprecated = true;
    const w = stringArg(args(dep), 'warning');
    if (w !== undefined) kind.deprecationWarning = w;
  }
  const scale = has('kubebuilder:subresource:scale');
  if (scale) {
    const a = args(scale);
    kind.subresources.scale = {
      specReplicasPath: stringArg(a, 'specpath')!,
      statusReplicasPath: stringArg(a, 'statuspath')!,
    };
    const sel = stringArg(a, 'selectorpath');
    if (sel !== undefined) kind.subresources.scale.labelSelectorPath = sel;
  }
  const deepcopy = has('k8s:deepcopy-gen');
  if (deepcopy && deepcopy.value === false) kind.noDeepCopy = true;

  const genclient = !!has('genclient');
  const sub = doc.markers.find((m) => m.def.name.startsWith('genclient:') && m.def.name !== 'genclient:nonNamespaced');
  if (sub && !genclient) {
    ctx.report(tsDiag('TS011', `+${sub.def.name} needs +genclient on the same kind`, sub.pos));
  }
  const verbs = verbsOf({
    genclient,
    noVerbs: !!has('genclient:noVerbs'),
    noStatus: !!has('genclient:noStatus'),
    readonly: !!has('genclient:readonly'),
    hasStatus: kind.subresources.status,
    ...optionalVerbs('onlyVerbs', has('genclient:onlyVerbs')),
    ...optionalVerbs('skipVerbs', has('genclient:skipVerbs')),
  });
  if ('error' in verbs) ctx.report(tsDiag('TS011', verbs.error, kind.source));
  else kind.verbs = verbs.verbs;
  return { kind, group, version, storageMarker: !!has('kubebuilder:storageversion'), decl };
}

function optionalVerbs(
  key: 'onlyVerbs' | 'skipVerbs',
  m: ParsedMarker | undefined,
): Partial<Record<typeof key, Verb[]>> {
  return m ? { [key]: m.value as Verb[] } : {};
}

function checkMetadata(ctx: ReadCtx, decl: ts.InterfaceDeclaration): void {
  const meta = decl.members.find((m) => ts.isPropertySignature(m) && propName(m.name) === 'metadata');
  if (!meta) {
    ctx.report(
      tsDiag(
        'TS010',
        `kind ${decl.name.text} needs "metadata: ObjectMeta"`,
        ctx.pos(decl.name),
        'import ObjectMeta from crdgen/types',
      ),
    );
    return;
  }
  const t = (meta as ts.PropertySignature).type;
  if (!t || !ts.isTypeReferenceNode(t) || t.typeName.getText().replace(/^.*\./, '') !== 'ObjectMeta') {
    ctx.report(tsDiag('TS010', `a kind's metadata must be ObjectMeta from crdgen/types`, ctx.pos(meta)));
  }
}

function args(m: ParsedMarker | undefined): Map<string, unknown> {
  return m && m.value instanceof Map ? (m.value as Map<string, unknown>) : new Map<string, unknown>();
}

function stringArg(a: Map<string, unknown>, key: string): string | undefined {
  const v = a.get(key);
  return typeof v === 'string' ? v : undefined;
}

function listArg(a: Map<string, unknown>, key: string): string[] {
  const v = a.get(key) as ListItem[] | undefined;
  return v ? v.map((i) => i.text) : [];
}

function printerColumn(a: Map<string, unknown>): PrinterColumn {
  const col: PrinterColumn = {
    name: stringArg(a, 'name')!,
    type: stringArg(a, 'type')!,
    jsonPath: stringArg(a, 'JSONPath')!,
  };
  const description = stringArg(a, 'description');
  if (description !== undefined) col.description = description;
  const format = stringArg(a, 'format');
  if (format !== undefined) col.format = format;
  const priority = a.get('priority');
  if (typeof priority === 'number') col.priority = priority;
  return col;
}
