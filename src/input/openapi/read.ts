// The OpenAPI reader: Kubernetes OpenAPI v3 documents (what kube-apiserver serves at
// /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>, aggregated APIs included) → the model.
// Kinds are the schemas with `x-kubernetes-group-version-kind` that the document's paths serve
// as resources; the paths give each kind's plural, scope, verbs and subresources. Every problem
// is a positioned diagnostic; nothing is built from a document with errors.

import pluralize from 'pluralize';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import {
  ALL_VERBS,
  STATUS_VERBS,
  type Group,
  type GroupVersion,
  type Kind,
  type Model,
  type ObjectNode,
  type SchemaNode,
  type Verb,
} from '../../model/types.js';
import { compareKubeVersions, isKindName, isSafePathSegment, publicName, RESERVED_WORDS } from '../../model/naming.js';
import { RESERVED_TYPE_NAMES, titleClaimer } from '../../model/titles.js';
import { compareStrings } from '../../model/order.js';
import { decodeText, type CrdSource, type ReadResult } from '../crd/read.js';
import { dottedPath, type Path } from '../crd/field-path.js';
import { lazySourcePos } from '../crd/schema-node.js';
import { loadDocument, type ApiDocument } from './document.js';
import { servedResources, verbsOf, type ServedResource } from './resources.js';
import { RUNTIME_DEFINITIONS, SchemaConverter, type Definition, type NamedNode } from './schema.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Options of {@link readOpenApiInputs}. */
export interface OpenApiReadOptions {
  /**
   * Only these kinds (`Kind`, `version/Kind` or `group/version/Kind`, `v1/Pod` for the core
   * group); default every kind the documents serve. A selector that matches nothing is an error.
   */
  kinds?: readonly string[];
}

/** A kind found in a document: its definition and what the paths say about it. */
interface FoundKind {
  group: string;
  version: string;
  kind: string;
  definition: string;
  served?: ServedResource;
  file: string;
  doc: ApiDocument;
  path: Path;
}

/** The package of a definition name: all but its last dot-separated segment. */
function packageOf(definition: string): string {
  const i = definition.lastIndexOf('.');
  return i < 0 ? '' : definition.slice(0, i);
}

/** The last segment of a definition name (`io.k8s.api.core.v1.PodSpec` → `PodSpec`). */
function shortOf(definition: string): string {
  return definition.slice(definition.lastIndexOf('.') + 1);
}

/**
 * The type name of a definition's last segment: PascalCase; a reserved word stays as it is (and
 * is then taken as a clash: the package goes in front), other names are made identifiers.
 */
function typeName(short: string): string {
  const raw = short
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
  return RESERVED_WORDS.has(raw) || RESERVED_TYPE_NAMES.includes(raw) ? raw : publicName(short);
}

/** A package as a name prefix: its last two segments (`io.k8s.api.core.v1` → `CoreV1`). */
function packageLabel(pkg: string): string {
  return publicName(pkg.split('.').slice(-2).join('-'));
}

/** True when `text` is (probably) an OpenAPI or Swagger document: its top level has `openapi` or `swagger`. */
export function isOpenApiText(text: string): boolean {
  return /^\s*\{\s*"(openapi|swagger)"\s*:/.test(text) || /^(openapi|swagger)\s*:/m.test(text.slice(0, 4096));
}

/** Does `selector` (see {@link OpenApiReadOptions.kinds}) name this kind? */
function selects(selector: string, k: FoundKind): boolean {
  const parts = selector.split('/');
  if (parts.length === 1) return parts[0] === k.kind;
  if (parts.length === 2)
    return k.group === ''
      ? parts[0] === k.version && parts[1] === k.kind
      : `${k.group}/${k.kind}` === selector || (parts[0] === k.version && parts[1] === k.kind);
  return `${k.group}/${k.version}/${k.kind}` === selector;
}

/**
 * Reads Kubernetes OpenAPI v3 documents into the model. Definitions of the same name in several
 * documents are one (the first); a kind served by two documents is an error.
 */
export function readOpenApiInputs(sources: readonly CrdSource[], options: OpenApiReadOptions = {}): ReadResult {
  const diagnostics: Diagnostic[] = [];
  const sourcesList = [...new Set(sources.map((s) => s.file.replace(/\\/g, '/')))].sort(compareStrings);
  const empty = (): ReadResult => ({ model: { groups: [], sources: sourcesList }, diagnostics });
  const defs = new Map<string, Definition>();
  const found: FoundKind[] = [];
  for (const src of sources) {
    const decoded = decodeText(src.file, src.content);
    if ('diagnostic' in decoded) {
      diagnostics.push(decoded.diagnostic);
      continue;
    }
    if (decoded.text.trim() === '') {
      diagnostics.push({
        severity: 'error',
        code: 'IO003',
        file: src.file,
        message: 'input is empty; expected an OpenAPI v3 document',
      });
      continue;
    }
    const { doc, diagnostics: parse } = loadDocument(decoded.text, src.file);
    diagnostics.push(...parse);
    if (!doc) continue;
    readDocument(src.file, doc, defs, found, diagnostics);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return empty();
  // duplicates, then the selection
  const seen = new Map<string, FoundKind>();
  const unique: FoundKind[] = [];
  for (const k of found) {
    const id = `${k.group}/${k.version} kind ${k.kind}`;
    const prev = seen.get(id);
    if (prev) {
      const at = k.doc.locate(k.path);
      const first = prev.doc.locate(prev.path);
      diagnostics.push({
        severity: 'error',
        code: 'GEN003',
        file: k.file,
        ...at,
        path: dottedPath(k.path),
        message: `${id} is defined twice (first at ${prev.file}:${first.line}:${first.col})`,
        hint: 'pass each group-version once',
      });
      continue;
    }
    seen.set(id, k);
    unique.push(k);
  }
  let chosen = unique;
  if (options.kinds !== undefined) {
    for (const sel of options.kinds) {
      if (!unique.some((k) => selects(sel, k))) {
        const known = [
          ...new Set(
            unique.map((k) => (k.group === '' ? `${k.version}/${k.kind}` : `${k.group}/${k.version}/${k.kind}`)),
          ),
        ].sort(compareStrings);
        diagnostics.push({
          severity: 'error',
          code: 'OAPI010',
          message: `no kind ${JSON.stringify(sel)} in the OpenAPI input`,
          hint: `known: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`,
        });
      }
    }
    chosen = unique.filter((k) => options.kinds!.some((sel) => selects(sel, k)));
  }
  if (diagnostics.some((d) => d.severity === 'error')) return empty();
  const converter = new SchemaConverter(defs, diagnostics);
  const kinds: Array<{ found: FoundKind; kind: Kind }> = [];
  for (const f of chosen) {
    const schema = converter.definition(f.definition);
    if (schema.type !== 'object') {
      diagnostics.push({
        severity: 'error',
        code: 'OAPI007',
        file: f.file,
        ...f.doc.locate(f.path),
        path: dottedPath(f.path),
        message: `the schema of kind ${f.kind} must be an object with properties`,
      });
      continue;
    }
    kinds.push({ found: f, kind: buildKind(f, schema) });
  }
  if (diagnostics.some((d) => d.severity === 'error')) return empty();
  const model = assemble(kinds, sourcesList);
  settleHomes(model, converter);
  nameTypes(model, converter, kinds, diagnostics);
  if (diagnostics.some((d) => d.severity === 'error')) return empty();
  return { model, diagnostics };
}

/** Checks one document's top level and collects its definitions and kinds. */
function readDocument(
  file: string,
  doc: ApiDocument,
  defs: Map<string, Definition>,
  found: FoundKind[],
  diagnostics: Diagnostic[],
): void {
  const v = doc.value;
  const err = (path: Path, code: DiagnosticCode, message: string, hint?: string): void => {
    diagnostics.push({
      severity: 'error',
      code,
      file,
      ...doc.locate(path),
      path: dottedPath(path),
      message,
      ...(hint ? { hint } : {}),
    });
  };
  if (!isObj(v)) {
    err(
      [],
      'OAPI002',
      `expected an OpenAPI v3 document (an object with "openapi" and "components"), found ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}`,
    );
    return;
  }
  if (typeof v.swagger === 'string') {
    err(
      ['swagger'],
      'OAPI002',
      `OpenAPI v2 (swagger ${v.swagger}) is not supported: crdgen reads OpenAPI v3`,
      'fetch the v3 document: kubectl get --raw /openapi/v3/apis/<group>/<version>',
    );
    return;
  }
  if (typeof v.openapi !== 'string' || !/^3\./.test(v.openapi)) {
    err(
      v.openapi === undefined ? [] : ['openapi'],
      'OAPI002',
      v.openapi === undefined
        ? 'not an OpenAPI document: the top level has no "openapi" field'
        : `unsupported OpenAPI version ${JSON.stringify(v.openapi)}: crdgen reads 3.x`,
    );
    return;
  }
  const schemas = isObj(v.components) ? v.components.schemas : undefined;
  if (!isObj(schemas)) {
    err(
      isObj(v.components) ? ['components'] : [],
      'OAPI003',
      'the document has no components.schemas: no Kubernetes kind to generate',
    );
    return;
  }
  const paths = v.paths;
  if (paths !== undefined && !isObj(paths)) {
    err(['paths'], 'OAPI007', 'paths must be an object');
    return;
  }
  const served = servedResources(paths);
  const hasPaths = isObj(paths) && Object.keys(paths).length > 0;
  let guessed = 0;
  const before = found.length;
  for (const [name, schema] of Object.entries(schemas)) {
    const path: Path = ['components', 'schemas', { key: name }];
    if (!defs.has(name)) defs.set(name, { name, schema, file, doc, path });
    if (!isObj(schema)) continue;
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (gvks === undefined) continue;
    const gpath: Path = [...path, 'x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvks)) {
      err(gpath, 'OAPI006', 'x-kubernetes-group-version-kind must be a list of {group, version, kind}');
      continue;
    }
    gvks.forEach((g, i) => {
      if (!isObj(g) || typeof g.group !== 'string' || typeof g.version !== 'string' || typeof g.kind !== 'string') {
        err(
          [...gpath, i],
          'OAPI006',
          'each x-kubernetes-group-version-kind entry must have string group (empty for the core group), version and kind',
        );
        return;
      }
      const group = g.group;
      const version = g.version;
      const kind = g.kind;
      let r: ServedResource | undefined;
      if (hasPaths) {
        r = served.get(`${group}/${version}/${kind}`);
        if (!r) return; // not a resource of its own: List kinds, options, subresource bodies
      } else {
        // no paths: the objects (apiVersion, kind, metadata: ObjectMeta) are the kinds
        const props = isObj(schema.properties) ? schema.properties : {};
        const meta = props.metadata;
        const ref = isObj(meta)
          ? (meta.$ref ?? (Array.isArray(meta.allOf) && isObj(meta.allOf[0]) ? meta.allOf[0].$ref : undefined))
          : undefined;
        if (
          typeof ref !== 'string' ||
          !ref.endsWith('.ObjectMeta') ||
          props.apiVersion === undefined ||
          props.kind === undefined
        )
          return;
        guessed++;
      }
      if (!isKindName(kind)) {
        err([...gpath, i, 'kind'], 'GEN001', `kind ${JSON.stringify(kind)} must be an UpperCamelCase identifier`);
        return;
      }
      if (!isSafePathSegment(version) || (group !== '' && !isSafePathSegment(group))) {
        err([...gpath, i], 'GEN002', `${group}/${version} cannot be used as an output folder name`);
        return;
      }
      found.push({ group, version, kind, definition: name, ...(r ? { served: r } : {}), file, doc, path });
    });
  }
  if (guessed > 0) {
    diagnostics.push({
      severity: 'warning',
      code: 'OAPI008',
      file,
      ...doc.locate(['paths']),
      path: 'paths',
      message: `the document has no paths: the plural, scope and verbs of its ${guessed} kinds are guessed (plural of the kind in lower case, namespaced, every verb)`,
      hint: 'use the document kube-apiserver serves at /openapi/v3/<group-version>, which has them',
    });
  }
  if (found.length === before) {
    diagnostics.push({
      severity: 'error',
      code: 'OAPI003',
      file,
      ...doc.locate(['components', 'schemas']),
      path: 'components.schemas',
      message: 'no schema with x-kubernetes-group-version-kind is served as a resource: no Kubernetes kind to generate',
      hint: 'crdgen reads the OpenAPI v3 documents kube-apiserver serves (kubectl get --raw /openapi/v3/apis/<group>/<version>)',
    });
  }
}

function buildKind(f: FoundKind, schema: ObjectNode): Kind {
  const r = f.served;
  const status = r ? r.subresources.has('status') : schema.properties.some((p) => p.name === 'status');
  const verbs: Verb[] = r ? verbsOf(r) : ALL_VERBS.filter((v) => status || !STATUS_VERBS.includes(v));
  const kind: Kind = {
    kind: f.kind,
    listKind: `${f.kind}List`,
    plural: r ? r.plural : pluralize(f.kind.toLowerCase()),
    singular: f.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope: r && !r.namespaced ? 'Cluster' : 'Namespaced',
    served: true,
    storage: true,
    deprecated: false,
    subresources: { status },
    printerColumns: [],
    verbs,
    schema,
    source: lazySourcePos(f.file, f.path, () => f.doc.locate(f.path)),
  };
  if (r?.subresources.has('scale'))
    kind.subresources.scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };
  return kind;
}

function assemble(kinds: Array<{ found: FoundKind; kind: Kind }>, sources: string[]): Model {
  const groups = new Map<string, Map<string, Kind[]>>();
  for (const { found, kind } of kinds) {
    let versions = groups.get(found.group);
    if (!versions) groups.set(found.group, (versions = new Map<string, Kind[]>()));
    let list = versions.get(found.version);
    if (!list) versions.set(found.version, (list = []));
    list.push(kind);
  }
  const out: Group[] = [...groups.entries()]
    .sort((a, b) => compareStrings(a[0], b[0]))
    .map(([name, versions]) => {
      const vs = [...versions.entries()].sort((a, b) => compareKubeVersions(a[0], b[0]));
      // the first version in kube order is the preferred one: a kind served by several is stored there
      const first = new Set<string>();
      return {
        name,
        versions: vs.map(([vname, ks]): GroupVersion => {
          const sorted = [...ks].sort((a, b) => compareStrings(a.kind, b.kind));
          for (const k of sorted) {
            k.storage = !first.has(k.kind);
            first.add(k.kind);
          }
          return { name: vname, kinds: sorted };
        }),
      };
    });
  return { groups: out, sources };
}

/** A group and version. */
interface GroupVersionRef {
  group: string;
  version: string;
}

const gvKey = (g: GroupVersionRef): string => `${g.group}/${g.version}`;

/**
 * The named objects the files of `here` see, by node (titles are not settled yet): those they
 * declare (reached from its kinds without passing a shared object declared elsewhere) and the
 * shared objects of other versions they import.
 */
function visibleNodes(gv: GroupVersion, here: GroupVersionRef): { local: Set<ObjectNode>; foreign: Set<ObjectNode> } {
  const local = new Set<ObjectNode>();
  const foreign = new Set<ObjectNode>();
  const visited = new Set<SchemaNode>();
  const visit = (node: SchemaNode): void => {
    if (visited.has(node)) return;
    visited.add(node);
    if (node.type === 'object') {
      const d = node.declaredIn;
      if (d === 'runtime') return;
      if (d !== undefined && gvKey(d) !== gvKey(here)) {
        foreign.add(node);
        return;
      }
      if (node.title !== undefined || node.properties.length > 0) local.add(node);
      for (const p of node.properties) visit(p.schema);
    } else if (node.type === 'array') visit(node.items);
    else if (node.type === 'map') visit(node.values);
  };
  for (const k of gv.kinds) if (k.schema) visit(k.schema);
  return { local, foreign };
}

/**
 * Where each shared definition is declared: the runtime for ObjectMeta and ListMeta; the
 * group/version of its package when that version's kinds use it (core/v1's PodSpec is declared
 * in core/v1 and imported by apps/v1 and batch/v1); else in every version that uses it. Objects
 * inline in a definition go with it.
 */
function settleHomes(model: Model, converter: SchemaConverter): void {
  const definitions = converter.named.filter((n) => n.suffix === '');
  const rootDefinition = new Map<ObjectNode, string>(definitions.map((n) => [n.node, n.definition]));
  // a package's group/version: the one of its kinds (none when they are in several)
  const pkgHome = new Map<string, GroupVersionRef | null>();
  for (const g of model.groups) {
    for (const v of g.versions) {
      for (const k of v.kinds) {
        const def = rootDefinition.get(k.schema as ObjectNode);
        if (def === undefined) continue;
        const pkg = packageOf(def);
        const prev = pkgHome.get(pkg);
        const here = { group: g.name, version: v.name };
        if (prev === undefined) pkgHome.set(pkg, here);
        else if (prev !== null && gvKey(prev) !== gvKey(here)) pkgHome.set(pkg, null);
      }
    }
  }
  for (const { node, definition } of definitions) {
    if (RUNTIME_DEFINITIONS.has(definition)) node.declaredIn = 'runtime';
    else {
      const home = pkgHome.get(packageOf(definition));
      if (home) node.declaredIn = { ...home };
    }
  }
  // a home whose kinds do not reach the definition cannot declare it: then it is declared where used
  for (let round = 0; round < 100; round++) {
    const declared = new Map<string, Set<ObjectNode>>();
    for (const g of model.groups)
      for (const v of g.versions)
        declared.set(
          gvKey({ group: g.name, version: v.name }),
          visibleNodes(v, { group: g.name, version: v.name }).local,
        );
    let changed = false;
    for (const { node } of definitions) {
      const d = node.declaredIn;
      if (d === undefined || d === 'runtime') continue;
      if (!declared.get(gvKey(d))?.has(node)) {
        delete node.declaredIn;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const byDefinition = new Map(definitions.map((n) => [n.definition, n.node]));
  for (const s of converter.cycleStubs) {
    const d = byDefinition.get(s.definition)?.declaredIn;
    if (d !== undefined) s.node.declaredIn = d === 'runtime' ? d : { ...d };
  }
}

/**
 * Titles: a definition is named by its last segment (`PodSpec`), a kind's schema by the kind;
 * where two types would take one name in a group/version's files (core/v1's and events/v1's
 * EventSeries, or a reserved name), the definitions take their package's name in front
 * (`CoreV1EventSeries`); an object inline in a definition is named by the definition and the
 * property path (`…Spec` + `Template`), and a name still taken gets a number.
 */
function nameTypes(
  model: Model,
  converter: SchemaConverter,
  kinds: ReadonlyArray<{ found: FoundKind; kind: Kind }>,
  diagnostics: Diagnostic[],
): void {
  const kindOf = new Map<ObjectNode, string>();
  for (const { kind } of kinds) kindOf.set(kind.schema as ObjectNode, kind.kind);
  const definitionOf = new Map<ObjectNode, NamedNode>();
  for (const n of converter.named) definitionOf.set(n.node, n);
  for (const s of converter.cycleStubs)
    definitionOf.set(s.node, { node: s.node, definition: s.definition, suffix: '' });
  const qualified = new Set<string>(); // definitions named with their package in front
  const titleOf = (n: NamedNode): string => {
    const k = n.suffix === '' ? kindOf.get(n.node) : undefined;
    if (k !== undefined) return k;
    const runtime = n.suffix === '' ? RUNTIME_DEFINITIONS.get(n.definition) : undefined;
    if (runtime !== undefined) return runtime;
    const short = typeName(shortOf(n.definition));
    return (qualified.has(n.definition) ? packageLabel(packageOf(n.definition)) + short : short) + n.suffix;
  };
  const apply = (): void => {
    for (const n of definitionOf.values()) n.node.title = titleOf(n);
  };
  const isKindRoot = (n: ObjectNode): boolean => kindOf.has(n) && definitionOf.get(n)?.suffix === '';
  const files = model.groups.flatMap((g) =>
    g.versions.map((v) => ({ g, v, here: { group: g.name, version: v.name } })),
  );
  const seenIn = files.map(({ v, here }) => {
    const { local, foreign } = visibleNodes(v, here);
    return { v, nodes: [...local, ...foreign].filter((n) => definitionOf.has(n)) };
  });
  for (let round = 0; round < 10; round++) {
    apply();
    let changed = false;
    for (const { v, nodes } of seenIn) {
      const reserved = new Set<string>([...RESERVED_TYPE_NAMES, ...RESERVED_WORDS, ...v.kinds.map((k) => k.listKind)]);
      const byTitle = new Map<string, Set<string>>();
      for (const n of nodes) {
        let set = byTitle.get(n.title!);
        if (!set) byTitle.set(n.title!, (set = new Set()));
        set.add(definitionOf.get(n)!.definition + '#' + definitionOf.get(n)!.suffix);
      }
      for (const n of nodes) {
        const d = definitionOf.get(n)!;
        if (isKindRoot(n) || qualified.has(d.definition)) continue;
        if (byTitle.get(n.title!)!.size > 1 || reserved.has(n.title!)) {
          qualified.add(d.definition);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  apply();
  // what the package names could not separate: a number (by definition name), or an error for kinds
  const renamed = new Map<string, string>();
  for (const { v, nodes } of seenIn) {
    const used = new Set<string>([...RESERVED_TYPE_NAMES, ...RESERVED_WORDS, ...v.kinds.map((k) => k.listKind)]);
    const claim = titleClaimer(used);
    const id = (n: ObjectNode): string => `${definitionOf.get(n)!.definition}#${definitionOf.get(n)!.suffix}`;
    const sorted = [...new Set(nodes)].sort(
      (a, b) => Number(isKindRoot(b)) - Number(isKindRoot(a)) || compareStrings(id(a), id(b)),
    );
    const owner = new Map<string, string>();
    for (const n of sorted) {
      const known = renamed.get(id(n));
      if (known !== undefined) n.title = known;
      const t = n.title!;
      const prev = owner.get(t);
      if (prev === id(n)) continue;
      if (prev === undefined && !used.has(t)) {
        used.add(t);
        owner.set(t, id(n));
        continue;
      }
      if (isKindRoot(n)) {
        const src = n.source;
        diagnostics.push({
          severity: 'error',
          code: 'OAPI009',
          ...(src ? { file: src.file, line: src.line, col: src.col } : {}),
          message: `${v.name}: two types are named ${t} (the kind ${t} and another type its kinds use)`,
          hint: 'generate these group-versions in separate runs',
        });
        continue;
      }
      n.title = claim(t);
      owner.set(n.title, id(n));
      renamed.set(id(n), n.title);
    }
  }
  // a cycle's stub takes its definition's final name
  for (const s of converter.cycleStubs) {
    const real = converter.named.find((n) => n.definition === s.definition && n.suffix === '');
    if (real) s.node.title = real.node.title!;
  }
}
