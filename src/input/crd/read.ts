// The CRD reader: input texts → checked CRDs → the model, with every problem
// reported as a positioned diagnostic. Nothing is built from an invalid CRD.

import { deserialize, serialize } from 'node:v8';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import {
  ALL_VERBS,
  STATUS_VERBS,
  type CrdFacts,
  type Group,
  type GroupVersion,
  type JsonObject,
  type Kind,
  type Model,
  type SchemaNode,
} from '../../model/types.js';
import { freezeSchema, schemaToJson, setOwn } from '../../model/schema-json.js';
import { crdNamesObject, crdVersionObject, unapprovedFacts } from '../../model/crd-json.js';
import { compareKubeVersions, isSafePathSegment, kindTypeName, listTypeName, typeName } from '../../model/naming.js';
import { RESERVED_TYPE_NAMES } from '../../model/titles.js';
import { compareStrings } from '../../model/order.js';
import { checkCrdRequest, CRD_API_VERSIONS } from './check.js';
import { checkV1beta1Crd, normalizeVersions } from './check-v1beta1.js';
import { defaultProblems } from './defaults.js';
import { isObj } from './check-schema.js';
import { apiserverField, dottedPath, keyedPath, type Path } from './field-path.js';
import { genError, type Finding } from './field-errors.js';
import { jsonEqual, lazySourcePos, toSchemaNode, withPath } from './schema-node.js';
import { assignTitles } from './titles.js';
import { loadYaml, positionsOnly, type YamlDoc } from './yaml-source.js';
import { decodeCrd } from './decode.js';
import { SchemaError } from '../../runtime/validation/schema.js';
import { precompileSchema, RuleCompileError } from '../../runtime/validation/validator.js';
// the reader compiles CEL rules as the apiserver does on CRD create
import '../../runtime/validation/index.js';

/** One input: its display name (as given on the command line, or `<stdin>`) and its bytes. */
export interface CrdSource {
  file: string;
  content: Uint8Array | string;
  /**
   * Found by walking a directory or expanding a glob (not named by the user): a file without any CRD
   * is then skipped with a warning instead of being an error.
   */
  fromDirectory?: boolean;
}

/** What a reader returns: the model (empty when there are errors) and every diagnostic. */
export interface ReadResult {
  model: Model;
  diagnostics: Diagnostic[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes bytes as UTF-8 text, or returns a diagnostic for binary/invalid input. */
export function decodeText(file: string, content: Uint8Array | string): { text: string } | { diagnostic: Diagnostic } {
  let text: string;
  if (typeof content === 'string') text = content;
  else {
    if (content.includes(0))
      return {
        diagnostic: {
          severity: 'error',
          code: 'IO002',
          file,
          message: 'input contains NUL bytes; it looks like a binary file, not YAML',
        },
      };
    try {
      text = utf8.decode(content);
    } catch {
      return { diagnostic: { severity: 'error', code: 'IO002', file, message: 'input is not valid UTF-8 text' } };
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (/[\u0000-\u0008\u000e-\u001f]/.test(text.replace(/\u001b/g, ''))) {
    return {
      diagnostic: {
        severity: 'error',
        code: 'IO002',
        file,
        message: 'input contains control characters; it looks like a binary file, not YAML',
      },
    };
  }
  return { text };
}

/** A CRD that passed the checks, with the document it came from (for positions). */
export interface CheckedCrd {
  doc: YamlDoc;
  file: string;
  crd: Record<string, unknown>;
}

/**
 * Reads every source, checks every CRD, and builds the model from all of them.
 * Diagnostics come in input order; when any is an error the model is empty
 * (`groups: []`) so that nothing is generated from a partly valid input set.
 */
export function readCrdInputs(sources: readonly CrdSource[]): ReadResult {
  const diagnostics: Diagnostic[] = [];
  const crds: CheckedCrd[] = [];
  for (const src of sources) {
    const checked = checkSource(src);
    diagnostics.push(...checked.diagnostics);
    crds.push(...checked.crds);
  }
  const sourcesList = [...new Set(sources.map((s) => s.file.replace(/\\/g, '/')))].sort(compareStrings);
  if (diagnostics.some((d) => d.severity === 'error'))
    return { model: { groups: [], sources: sourcesList }, diagnostics };
  const built = buildModel(crds, sourcesList);
  diagnostics.push(...built.engine, ...built.duplicates, ...built.renamed.map((r) => r.diagnostic));
  if (diagnostics.some((d) => d.severity === 'error'))
    return { model: { groups: [], sources: sourcesList }, diagnostics };
  return { model: built.model, diagnostics };
}

/** What {@link checkSource} found in one input: its diagnostics (in order) and the CRDs without errors. */
export interface CheckedSource {
  diagnostics: Diagnostic[];
  crds: CheckedCrd[];
}

/**
 * Reads and checks one input on its own: decoding, YAML, every CRD's apiserver and generator
 * checks. What needs several inputs together (kinds defined twice, titles, the engine checks of
 * the finished schemas) is {@link buildModel}'s.
 */
export function checkSource(src: CrdSource): CheckedSource {
  const decoded = decodeText(src.file, src.content);
  if ('diagnostic' in decoded) return { diagnostics: [decoded.diagnostic], crds: [] };
  return checkText(src.file, decoded.text, src.fromDirectory === true);
}

/** {@link checkSource} of an input's text ({@link decodeText}'s), `fromDirectory` as {@link CrdSource} has it. */
export function checkText(file: string, text: string, fromDirectory: boolean): CheckedSource {
  const diagnostics: Diagnostic[] = [];
  const crds: CheckedCrd[] = [];
  if (text.trim() === '') {
    diagnostics.push({
      severity: 'error',
      code: 'IO003',
      file,
      message: 'input is empty; expected a CustomResourceDefinition',
    });
    return { diagnostics, crds };
  }
  const { docs, diagnostics: yamlDiags } = loadYaml(text, file);
  diagnostics.push(...yamlDiags);
  const integralFloats = integralFloatValues(text);
  let textLines: string[] | undefined;
  const lines = (): string[] => (textLines ??= text.split('\n'));
  let found = 0;
  for (const doc of docs) {
    const v = doc.value;
    const kind = isObj(v) ? v.kind : undefined;
    const apiVersion = isObj(v) ? v.apiVersion : undefined;
    if (kind !== 'CustomResourceDefinition') {
      const what = isObj(v)
        ? `kind ${typeof kind === 'string' ? JSON.stringify(kind) : 'missing'}`
        : `a ${v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v}`;
      diagnostics.push({
        severity: 'warning',
        code: 'CRD002',
        file,
        ...doc.start,
        message: `document ${doc.index + 1} (${what}) is not a CustomResourceDefinition; skipped`,
      });
      continue;
    }
    found++;
    if (!(CRD_API_VERSIONS as readonly unknown[]).includes(apiVersion)) {
      diagnostics.push({
        severity: 'error',
        code: 'CRD003',
        file,
        ...doc.locate(['apiVersion']),
        message: `Unsupported value: ${JSON.stringify(apiVersion ?? null)}: supported values: ${CRD_API_VERSIONS.map((a) => JSON.stringify(a)).join(', ')}`,
        path: 'apiVersion',
        field: 'apiVersion',
      });
      continue;
    }
    // a v1 CRD is read as the apiserver decodes it (nulls and the fields it drops left out)
    let crd = v as Record<string, unknown>;
    let checked: Finding[];
    if (apiVersion === 'apiextensions.k8s.io/v1') {
      const verdict = checkCrdRequest(v, {
        // (only a value written somewhere as `5.0` or `1e3` needs its position looked up)
        numberText: (path, value) => (integralFloats.has(value) ? numberText(lines(), doc, path()) : undefined),
      });
      checked = verdict.findings;
      crd = verdict.crd;
    } else checked = checkV1beta1Crd(v);
    const findings = [...checked, ...generatorChecks(crd)];
    // (one problem the apiserver reports at two fields of its internal form — spec.version and
    // spec.versions[0].name — is one place in the file: shown once)
    const seen = new Set<string>();
    const located = findings
      .map((f) => positioned(f, doc, file))
      .filter((d) => {
        const key = JSON.stringify([d.line, d.col, d.code, d.path, d.message]);
        return !seen.has(key) && seen.add(key);
      });
    // Stable sort by position: problems read top to bottom, same-place ones in check order.
    located.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
    diagnostics.push(...located);
    if (!findings.some((f) => f.diag.severity === 'error')) {
      crds.push({ doc, file, crd });
      if (!normalizeVersions(crd).some((ver) => ver.served)) {
        const at: Path = Array.isArray((crd as { spec: { versions?: unknown } }).spec.versions)
          ? ['spec', 'versions']
          : ['spec'];
        diagnostics.push({
          severity: 'warning',
          code: 'GEN004',
          file,
          ...doc.locate(at),
          path: dottedPath(at),
          field: apiserverField(at),
          message: 'no version is served, so nothing is generated for this CRD',
          hint: 'set served: true on the versions clients should use',
        });
      }
    }
  }
  if (found === 0 && yamlDiags.length === 0) {
    diagnostics.push({
      severity: fromDirectory ? 'warning' : 'error',
      code: 'CRD001',
      file,
      line: 1,
      col: 1,
      message: 'no CustomResourceDefinition found in this input',
      hint: 'crdgen reads apiextensions.k8s.io/v1 (or v1beta1) CustomResourceDefinition documents',
    });
  }
  return { diagnostics, crds };
}

/**
 * The CRDs of an input whose text {@link checkText} found without errors, not checked again
 * (the same text passed; a v1 CRD decoded as the apiserver holds it, as the checks hand it on):
 * what a run that reads its inputs twice builds its model from.
 */
export function checkedCrds(file: string, text: string): CheckedCrd[] {
  const crds: CheckedCrd[] = [];
  for (const doc of loadYaml(text, file).docs) {
    const v = doc.value;
    if (!isObj(v) || v.kind !== 'CustomResourceDefinition') continue;
    if (v.apiVersion === 'apiextensions.k8s.io/v1') crds.push({ doc, file, crd: decodeCrd(v).crd });
    else if ((CRD_API_VERSIONS as readonly unknown[]).includes(v.apiVersion)) crds.push({ doc, file, crd: v });
  }
  return crds;
}

/**
 * The CRDs {@link checkText} found in `text`, as a run that reads its inputs twice keeps them for
 * {@link buildModel} instead of parsing the text again: what {@link checkedCrds} would give,
 * without each document's raw value and any position-keeping parse the checks made (positions
 * are parsed again from the text when asked). Undefined when a document was read by the
 * position-keeping parse (kept, it would hold that parse).
 */
export function keepChecked(text: string, crds: readonly CheckedCrd[]): CheckedCrd[] | undefined {
  if (crds.some((c) => c.doc.positioned)) return undefined;
  const docOf = positionsOnly(text);
  return crds.map((c) => ({ doc: docOf(c.doc.index), file: c.file, crd: c.crd }));
}

/**
 * The CRDs {@link checkText} found, packed into one buffer (V8's structured serialization: the
 * same values, property order, `undefined` fields and numbers as the objects, at about a sixth of
 * the heap they take and without the text): what a run that reads its inputs twice keeps of an
 * input beyond what it keeps as objects ({@link keepChecked}). Undefined when a document was read
 * by the position-keeping parse.
 */
export interface PackedCrds {
  /** The decoded CRDs, serialized. */
  data: Uint8Array;
  /** Each CRD's document in its input. */
  docs: number[];
}

/** `crds` packed ({@link PackedCrds}); undefined when a document was read by the position-keeping parse. */
export function packChecked(crds: readonly CheckedCrd[]): PackedCrds | undefined {
  if (crds.some((c) => c.doc.positioned)) return undefined;
  return { data: serialize(crds.map((c) => c.crd)), docs: crds.map((c) => c.doc.index) };
}

/**
 * The CRDs of {@link packChecked} again, as {@link checkedCrds} gives them for the text `text()`
 * returns; the text is asked for only when a position is (a diagnostic's).
 */
export function unpackChecked(file: string, packed: PackedCrds, text: () => string): CheckedCrd[] {
  const values = deserialize(packed.data) as Record<string, unknown>[];
  const docOf = positionsOnly(text);
  return values.map((crd, i) => ({ doc: docOf(packed.docs[i]), file, crd }));
}

/** The text of bytes {@link decodeText} accepted before (UTF-8, byte order mark dropped), not checked again. */
export function decodeChecked(content: Uint8Array | string): string {
  const text = typeof content === 'string' ? content : utf8.decode(content);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A kind that got other TypeScript names than its own (GEN006), with where it is. */
export interface RenamedKind {
  group: string;
  version: string;
  diagnostic: Diagnostic;
}

/** What {@link buildModel} made of checked CRDs. */
export interface BuiltModel {
  model: Model;
  /** The engine's findings (CEL rules, defaults) per schema, in the CRDs' order. */
  engine: Diagnostic[];
  /** Kinds and resources defined twice (GEN003), in the CRDs' order. */
  duplicates: Diagnostic[];
  /** Kinds whose TypeScript names collide (GEN006 warnings), by group and version. */
  renamed: RenamedKind[];
}

/**
 * The model of checked CRDs (`crds` in input order): kinds per group and version, titled,
 * frozen, then checked by the validation engine as the apiserver does on create.
 */
export function buildModel(crds: readonly CheckedCrd[], sources: string[]): BuiltModel {
  const checks: EngineCheck[] = [];
  const kinds = crds.flatMap((c) => buildKinds(c, checks));
  const duplicates: Diagnostic[] = [];
  const renamed: RenamedKind[] = [];
  const model = assemble(kinds, sources, duplicates, { titles: true, renamed });
  // titled now: the schemas are final. Frozen, then checked by the engine (CEL rules, defaults)
  // as written back — the JSON the validators emitter embeds, whose compiled form it reuses.
  const engine: Diagnostic[] = [];
  for (const k of checks) freezeSchema(k.schema);
  for (const k of checks) if (k.check) engineCheck(schemaToJson(k.schema), k.schemaPath, k.crd, engine);
  return { model, engine, duplicates, renamed };
}

/**
 * The served kinds of checked CRDs without their schemas (and without what only the CRD writer
 * reads): what a run needs of the groups it is not generating at the moment — names, verbs,
 * scopes. Each kind's source names its file only (line and column 0: not looked up).
 */
export function lightKinds(c: CheckedCrd): { group: string; version: string; kind: Kind }[] {
  return buildKinds(c, [], true).map((b) => {
    b.kind.source = { file: b.file, line: 0, col: 0 };
    return { group: b.group, version: b.version, kind: b.kind };
  });
}

/**
 * The model of `kinds` (e.g. {@link lightKinds}): groups and versions sorted, kinds sorted by name,
 * their TypeScript names made distinct, no titles; its diagnostics are {@link buildModel}'s to give.
 */
export function lightModel(kinds: readonly { group: string; version: string; kind: Kind }[], sources: string[]): Model {
  return assemble(
    kinds.map((k) => ({ ...k, file: k.kind.source.file })),
    sources,
    [],
    { titles: false, renamed: [] },
  );
}

/**
 * A number written with a fraction or an exponent as a YAML/JSON value (`: 5.0`, `- 1e3`, `[1.0]`):
 * after a `:`, a flow indicator, or a block sequence's `-` (first on its line, then white space; a
 * `-` inside a word, `LICENSE-2.0` or `1-100.`, is none).
 */
const FLOAT_VALUE =
  /(?:[:[,{]|-(?<=^[ \t]*(?:-[ \t]+)*-)(?=\s))\s*(?=[-+.0-9])([-+]?(?:[0-9][0-9_]*)?\.?[0-9]*(?:\.[0-9]*|[eE][-+]?[0-9]+))(?=\s*(?:$|[,\]}#]))/gm;

/**
 * The integers the text writes as floats (`5.0` → 5): only those values make the decoder look
 * at how an integer field is written (which costs the positioned parse).
 */
function integralFloatValues(text: string): ReadonlySet<number> {
  const out = new Set<number>();
  for (const m of text.matchAll(FLOAT_VALUE)) {
    const n = Number(m[1].replace(/_/g, ''));
    if (Number.isInteger(n)) out.add(n);
  }
  return out;
}

/** The source text of the number at `path` (`5.0`, `1e3`), for the decoder's integer fields. */
function numberText(lines: readonly string[], doc: YamlDoc, path: Path): string | undefined {
  const at = doc.locate(path);
  const line = lines[at.line - 1];
  if (line === undefined) return undefined;
  const m = /^[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?/.exec(line.slice(at.col - 1));
  return m ? m[0] : undefined;
}

function positioned(f: Finding, doc: YamlDoc, file: string): Diagnostic {
  return { ...f.diag, file, ...doc.locate(f.path, f.atKey) };
}

/** The TypeScript names of a kind and its list kind (see kindTypeName); the list's follows the kind's when it is the default. */
function kindTypeNames(kind: string, listKind: string): { typeName: string; listTypeName: string } {
  const reserved = new Set(RESERVED_TYPE_NAMES);
  const typeName = kindTypeName(kind, reserved);
  let listTypeName = listKind === `${kind}List` ? `${typeName}List` : kindTypeName(listKind, reserved);
  if (listTypeName === typeName) listTypeName = `${typeName}List`;
  return { typeName, listTypeName };
}

/** Rules the generator adds on top of the apiserver's: names that become identifiers and paths. */
function generatorChecks(crd: Record<string, unknown>): Finding[] {
  const out: Finding[] = [];
  const spec = isObj(crd.spec) ? crd.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  // a kind that cannot name a TypeScript type as it is gets another name in the generated code
  const kind = typeof names.kind === 'string' ? names.kind : '';
  if (kind !== '') {
    const listKind = typeof names.listKind === 'string' && names.listKind !== '' ? names.listKind : `${kind}List`;
    const t = kindTypeNames(kind, listKind);
    if (t.typeName !== kind || t.listTypeName !== listKind) {
      const warning = genError(
        'GEN006',
        ['spec', 'names', t.typeName !== kind ? 'kind' : 'listKind'],
        `kind ${JSON.stringify(kind)} (list kind ${JSON.stringify(listKind)}) cannot name a TypeScript type as it is: the generated code names its type ${t.typeName} and its list type ${t.listTypeName}; the API keeps ${JSON.stringify(kind)}`,
        'an UpperCamelCase identifier that is no JavaScript built-in (e.g. "Widget") keeps one name for both',
      );
      warning.diag.severity = 'warning';
      out.push(warning);
    }
  }
  if (typeof spec.group === 'string' && spec.group !== '' && !isSafePathSegment(spec.group)) {
    out.push(
      genError(
        'GEN002',
        ['spec', 'group'],
        `group ${JSON.stringify(spec.group)} cannot be used as an output folder name`,
      ),
    );
  }
  normalizeVersions(crd).forEach((v) => {
    if (v.name !== '' && !isSafePathSegment(v.name))
      out.push(
        genError(
          'GEN002',
          v.path[v.path.length - 1] === 'version' ? v.path : [...v.path, 'name'],
          `version ${JSON.stringify(v.name)} cannot be used as an output folder name`,
        ),
      );
  });
  return out;
}

interface BuiltKind {
  group: string;
  version: string;
  kind: Kind;
  file: string;
}

/**
 * What the apiserver checks on CRD create beyond the field rules: that the validation engine can
 * reduce the schema and that every `x-kubernetes-validations` rule compiles against it (the same
 * `compilation failed` wording as the test server's 422). Pushes a positioned diagnostic per
 * problem. (The compiled schema is memoized on the frozen JSON: the validators emitter reuses it.)
 */
function engineCheck(schema: unknown, schemaPath: Path, c: CheckedCrd, diagnostics: Diagnostic[]): void {
  try {
    precompileSchema(schema);
    // a v1 CRD's defaults were checked with the rest (check.ts); a v1beta1 CRD's are checked here
    const problems =
      c.crd.apiVersion === 'apiextensions.k8s.io/v1beta1' && isObj(schema) ? defaultProblems(schema, schemaPath) : [];
    for (const p of problems) {
      diagnostics.push({
        severity: 'error',
        code: 'CRD040',
        file: c.file,
        ...c.doc.locate(p.at),
        path: dottedPath(p.at),
        field: p.error.field,
        message: p.error.message,
      });
    }
  } catch (e) {
    if (e instanceof RuleCompileError) {
      for (const p of e.problems) {
        const path = [...schemaPath, ...keyedPath(p.segments)];
        // the apiserver names the uncorrelatable node by its full field path
        const message = p.uncorrelatable
          ? p.detail.replace(
              /within openAPIV3Schema\S*$/,
              `within ${apiserverField([...schemaPath, ...keyedPath(p.uncorrelatable)])}`,
            )
          : p.detail;
        diagnostics.push({
          severity: 'error',
          code: 'CRD038',
          file: c.file,
          ...c.doc.locate(path),
          path: dottedPath(path),
          field: apiserverField(path),
          message,
        });
      }
      return;
    }
    if (e instanceof SchemaError) {
      diagnostics.push({
        severity: 'error',
        code: 'CRD039',
        file: c.file,
        ...c.doc.locate(schemaPath),
        path: dottedPath(schemaPath),
        field: apiserverField(schemaPath),
        message: `Invalid value: ${JSON.stringify(e.path)}: ${e.problem}`,
      });
      return;
    }
    throw e;
  }
}

/** A schema of a CRD version, to freeze and (`check`: the first version with that schema) check. */
interface EngineCheck {
  schema: SchemaNode;
  schemaPath: Path;
  crd: CheckedCrd;
  check: boolean;
}

function buildKinds(c: CheckedCrd, checks: EngineCheck[], light = false): BuiltKind[] {
  const spec = c.crd.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const group = spec.group as string;
  const kindName = names.kind as string;
  const strList = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const locate = (path: Path) =>
    c.doc.positioned
      ? withPath(c.doc.locate(path), c.file, path)
      : lazySourcePos(c.file, path, () => c.doc.locate(path));
  const out: BuiltKind[] = [];
  const all: { version: string; kind: Kind }[] = [];
  // v1beta1's top-level spec.validation is every version's schema: checked (and reported) once
  const checked = new Set<unknown>();
  // schemas the apiserver requires to be structural are kept whole (see toSchemaNode)
  const structural = c.crd.apiVersion !== 'apiextensions.k8s.io/v1beta1' || spec.preserveUnknownFields === false;
  for (const v of normalizeVersions(c.crd)) {
    const sub = isObj(v.subresources) ? v.subresources : {};
    const status = sub.status !== undefined && sub.status !== null;
    const listKind = typeof names.listKind === 'string' && names.listKind !== '' ? names.listKind : `${kindName}List`;
    const tsNames = kindTypeNames(kindName, listKind);
    const kind: Kind = {
      kind: kindName,
      listKind,
      ...(tsNames.typeName !== kindName ? { typeName: tsNames.typeName } : {}),
      ...(tsNames.listTypeName !== listKind ? { listTypeName: tsNames.listTypeName } : {}),
      plural: names.plural as string,
      singular: typeof names.singular === 'string' && names.singular !== '' ? names.singular : kindName.toLowerCase(),
      shortNames: strList(names.shortNames),
      categories: strList(names.categories),
      scope: spec.scope as Kind['scope'],
      served: v.served,
      storage: v.storage,
      deprecated: v.deprecated,
      subresources: { status },
      printerColumns: v.columns.filter(isObj).map((col) => {
        const pc: Kind['printerColumns'][number] = {
          name: String(col.name),
          type: String(col.type),
          jsonPath: String(col.jsonPath ?? col.JSONPath),
        };
        if (typeof col.description === 'string') pc.description = col.description;
        if (typeof col.format === 'string') pc.format = col.format;
        if (typeof col.priority === 'number') pc.priority = col.priority;
        return pc;
      }),
      verbs: ALL_VERBS.filter((verb) => status || !STATUS_VERBS.includes(verb)),
      source: locate(['spec', 'names', 'kind']),
    };
    if (v.deprecationWarning !== undefined) kind.deprecationWarning = v.deprecationWarning;
    if (isObj(sub.scale)) {
      kind.subresources.scale = {
        specReplicasPath: String(sub.scale.specReplicasPath),
        statusReplicasPath: String(sub.scale.statusReplicasPath),
      };
      if (typeof sub.scale.labelSelectorPath === 'string')
        kind.subresources.scale.labelSelectorPath = sub.scale.labelSelectorPath;
    }
    if (v.schema !== undefined && !light) {
      kind.schema = toSchemaNode(v.schema, v.schemaPath, locate, !structural);
      // every version with a schema, served or not, as the apiserver compiles them all
      checks.push({ schema: kind.schema, schemaPath: v.schemaPath, crd: c, check: !checked.has(v.schema) });
      checked.add(v.schema);
    }
    all.push({ version: v.name, kind });
    if (v.served) out.push({ group, version: v.name, kind, file: c.file });
  }
  if (light) return out;
  if (c.crd.apiVersion === 'apiextensions.k8s.io/v1')
    keepCrdFacts(
      c.crd,
      all,
      out.map((b) => b.kind),
    );
  else {
    // v1beta1 is written as the v1 CRD of its kinds; a protected group's gets the annotation v1 requires
    const facts = unapprovedFacts(group);
    if (facts) for (const b of out) b.kind.crd = facts;
  }
  return out;
}

/**
 * Keeps on the kinds what the v1 CRD says that their typed fields do not (see {@link CrdFacts}):
 * the CRD writer (src/model/crd-json.ts) then gives back this CRD. v1beta1 input is written as
 * the v1 CRD its typed fields give.
 */
function keepCrdFacts(crd: Record<string, unknown>, all: { version: string; kind: Kind }[], served: Kind[]): void {
  const spec = crd.spec as Record<string, unknown>;
  const rawVersions: unknown[] = Array.isArray(spec.versions) ? spec.versions : [];
  all.forEach(({ version, kind }, i) => {
    const raw = rawVersions[i];
    if (!isObj(raw)) return;
    // the schema is a tree of its own (exact by toSchemaNode's rule): compared by shape only
    const typed = crdVersionObject(version, { ...kind, schema: undefined });
    const extra = untyped(
      raw,
      typed,
      (k, v) =>
        k === 'schema' && kind.schema !== undefined && isObj(v) && sameKeys(Object.keys(v), ['openAPIV3Schema']),
    );
    if (extra) kind.crdVersion = extra;
  });
  const facts: CrdFacts = {};
  const metadata = isObj(crd.metadata) ? crd.metadata : {};
  if (isObj(metadata.labels)) facts.labels = { ...(metadata.labels as Record<string, string>) };
  if (isObj(metadata.annotations)) facts.annotations = { ...(metadata.annotations as Record<string, string>) };
  const specExtra = untyped(spec, {}, (k) => k === 'group' || k === 'names' || k === 'scope' || k === 'versions');
  if (specExtra) facts.spec = specExtra;
  const first = all[0].kind;
  const names = spec.names as Record<string, unknown>;
  const defaulted = (['listKind', 'singular'] as const).filter((n) => names[n] === undefined);
  if (defaulted.length > 0) facts.defaultedNames = defaulted;
  const namesExtra = untyped(names, crdNamesObject(first, []), () => false);
  if (namesExtra) facts.names = namesExtra;
  const written = all.map((v) => v.version);
  const model = served.map((k) => all.find((v) => v.kind === k)!.version).sort(compareKubeVersions);
  if (written.length !== model.length || written.some((n, i) => n !== model[i])) facts.versionOrder = written;
  const unserved = all.filter((v) => !v.kind.served);
  if (unserved.length > 0) facts.unserved = unserved;
  if (Object.keys(facts).length === 0) return;
  // the served kinds point at the facts (the unserved ones are in them)
  for (const kind of served) kind.crd = facts;
}

/**
 * The fields of `raw` that `typed` does not hold identically (`same` says a field is carried
 * elsewhere), as written; undefined when there are none.
 */
function untyped(
  raw: Record<string, unknown>,
  typed: Record<string, unknown>,
  same: (key: string, value: unknown) => boolean,
): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    if (same(k, v)) continue;
    if (Object.hasOwn(typed, k) && jsonEqual(typed[k], v)) continue;
    setOwn((out ??= {}), k, v);
  }
  return out;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/**
 * Makes the TypeScript names of one group/version's kinds and lists distinct: a name another kind
 * took first (`Promise` → `PromiseKind`, and another kind's list kind `Promise`) gets a number.
 */
function uniqueTypeNames(kinds: Kind[], group: string, version: string, renamed: RenamedKind[]): void {
  const gv = `${group}/${version}`;
  const used = new Set<string>();
  const claim = (name: string): string => {
    let out = name;
    for (let i = 2; used.has(out); i++) out = `${name}${i}`;
    used.add(out);
    return out;
  };
  for (const k of kinds) {
    const type = claim(typeName(k));
    const list = claim(listTypeName(k));
    if (type === typeName(k) && list === listTypeName(k)) continue;
    if (type !== k.kind) k.typeName = type;
    if (list !== k.listKind) k.listTypeName = list;
    const s = k.source;
    renamed.push({
      group,
      version,
      diagnostic: {
        severity: 'warning',
        code: 'GEN006',
        file: s.file,
        line: s.line,
        col: s.col,
        path: s.path ?? dottedPath(['spec', 'names', 'kind']),
        message: `the TypeScript names of kind ${JSON.stringify(k.kind)} collide with another kind's in ${gv}: the generated code names its type ${type} and its list type ${list}`,
        hint: 'give the kinds of one group distinct kinds and list kinds',
      },
    });
  }
}

function assemble(
  kinds: BuiltKind[],
  sources: string[],
  diagnostics: Diagnostic[],
  opts: { titles: boolean; renamed: RenamedKind[] },
): Model {
  const groups = new Map<string, Map<string, Kind[]>>();
  const seen = new Map<string, Kind>();
  for (const b of kinds) {
    for (const id of [
      `${b.group}/${b.version} kind ${b.kind.kind}`,
      `${b.group}/${b.version} resource ${b.kind.plural}`,
    ]) {
      const prev = seen.get(id);
      if (prev) {
        const s = b.kind.source;
        diagnostics.push({
          severity: 'error',
          code: 'GEN003',
          file: s.file,
          line: s.line,
          col: s.col,
          path: s.path ?? dottedPath(['spec', 'names', 'kind']),
          message: `${id} is defined twice (first at ${prev.source.file}:${prev.source.line}:${prev.source.col})`,
          hint: 'pass each CRD once',
        });
      } else seen.set(id, b.kind);
    }
    let versions = groups.get(b.group);
    if (!versions) groups.set(b.group, (versions = new Map<string, Kind[]>()));
    let list = versions.get(b.version);
    if (!list) versions.set(b.version, (list = []));
    list.push(b.kind);
  }
  const out: Group[] = [...groups.entries()]
    .sort((a, b) => compareStrings(a[0], b[0]))
    .map(([name, versions]) => ({
      name,
      versions: [...versions.entries()]
        .sort((a, b) => compareKubeVersions(a[0], b[0]))
        .map(([vname, ks]): GroupVersion => {
          const sorted = [...ks].sort((a, b) => compareStrings(a.kind, b.kind));
          uniqueTypeNames(sorted, name, vname, opts.renamed);
          if (opts.titles) assignTitles(sorted);
          return { name: vname, kinds: sorted };
        }),
    }));
  return { groups: out, sources };
}
