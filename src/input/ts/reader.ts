// The TypeScript reader: annotated interfaces (+ markers) → the same Model the CRD reader
// builds. Loads only what the markers need: one ts-morph Project, no lib files, no type
// check; the checker is used only to resolve named type references across files.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Project, ts } from 'ts-morph';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { compareKubeVersions } from '../../model/naming.js';
import type { CrdFacts, Group, Kind, Model } from '../../model/types.js';
import { unapprovedFacts } from '../../model/crd-json.js';
import { freezeSchema } from '../../model/schema-json.js';
import { allMarkerComments, attachedAndDetached, leadingBlocks, markerOf, posOf, type FileCtx } from './comments.js';
import { ReadCtx, describeTargets } from './context.js';
import { dedupeDiagnostics, tsDiag } from './diagnostics.js';
import { expandTsInputs } from './files.js';
import { isKindInterface, isListInterface, readKind, type KindDecl } from './kinds.js';
import { applyTypeScriptPlurals } from './plurals.js';
import { parseMarker } from './markers.js';
import { SchemaReader } from './schema.js';
import { assignTitles } from './titles.js';
import { checkKindsAsCrds } from './crd-check.js';

/** Options of a TypeScript read. */
export interface TsReadOptions {
  /** A tsconfig.json whose compiler options (paths, baseUrl, moduleResolution) resolve imports. */
  tsconfig?: string;
  /** Folder that relative inputs and displayed file names are relative to (default: process.cwd()). */
  cwd?: string;
  /**
   * Run the apiserver's CRD checks on the CRD each kind becomes (default true). Off, the model
   * is the TypeScript as written even where the apiserver would reject it (used by tests of the
   * TypeScript format itself).
   */
  apiserverChecks?: boolean;
  /** Plurals of kinds in generated names and resource paths (`--plural-exceptions`), by kind name. */
  pluralExceptions?: Readonly<Record<string, string>>;
}

/** What a read gives: the model (meaningful only when there are no errors) and every problem found. */
export interface TsReadResult {
  model: Model;
  diagnostics: Diagnostic[];
}

/** Reads annotated TypeScript files, folders or globs into the model. */
export function readTypeScript(inputs: readonly string[], options: TsReadOptions = {}): TsReadResult {
  const cwd = options.cwd ?? process.cwd();
  const { files, diagnostics } = expandTsInputs(inputs, cwd);
  const empty: Model = { groups: [], sources: files.map((f) => f.display) };
  if (files.length === 0) {
    if (diagnostics.length === 0) diagnostics.push(tsDiag('TS013', 'no TypeScript inputs given', undefined));
    return { model: empty, diagnostics: dedupeDiagnostics(diagnostics) };
  }
  let project: Project;
  try {
    project = createProject(options.tsconfig ? resolve(cwd, options.tsconfig) : undefined);
  } catch (e) {
    diagnostics.push(tsDiag('TS001', `cannot use tsconfig "${options.tsconfig}": ${firstLine(e)}`, undefined));
    return { model: empty, diagnostics };
  }
  const inputByAbs = new Map(files.map((f) => [f.abs, f]));
  for (const f of files) project.addSourceFileAtPath(f.abs);
  for (const folder of new Set(files.map((f) => dirname(f.abs)))) {
    const doc = join(folder, 'doc.ts');
    if (existsSync(doc) && !inputByAbs.has(doc)) project.addSourceFileAtPath(doc);
  }
  const program = project.getProgram().compilerObject;
  const display = (fileName: string): string =>
    inputByAbs.get(resolve(fileName))?.display ?? relative(cwd, fileName).replace(/\\/g, '/');
  const ctx = new ReadCtx(program.getTypeChecker(), display);
  ctx.diags.push(...diagnostics);
  const schemas = new SchemaReader(ctx);

  const kinds: KindDecl[] = [];
  const others: (ts.InterfaceDeclaration | ts.TypeAliasDeclaration)[] = [];
  const sfs: ts.SourceFile[] = [];
  const broken = new Set<ts.SourceFile>();
  for (const f of files) {
    const sf = program.getSourceFile(f.abs);
    if (!sf) {
      ctx.report(tsDiag('TS001', `cannot read "${f.display}"`, undefined));
      continue;
    }
    sfs.push(sf);
    const syntax = program.getSyntacticDiagnostics(sf);
    for (const d of syntax) {
      const pos = posOf(ctx.file(sf), d.start ?? 0);
      ctx.report(tsDiag('TS001', ts.flattenDiagnosticMessageText(d.messageText, ' '), pos));
    }
    if (syntax.length > 0) {
      broken.add(sf);
      continue;
    }
    const gv = groupVersionOf(ctx, program, sf);
    for (const stmt of sf.statements) readStatement(ctx, schemas, stmt, gv, kinds, others);
  }
  // Types no kind uses are read once too, so that their markers and types are checked.
  for (const decl of others) {
    if (schemas.seen.has(decl)) continue;
    if (ts.isInterfaceDeclaration(decl)) schemas.interfaceSchema(decl);
    else schemas.alias(decl);
  }
  for (const sf of sfs) if (!broken.has(sf)) reportUnattached(ctx, sf);
  // Files reached only through imports: their syntax errors matter where their types are used.
  const reached = new Set([...schemas.seen].map((d) => d.getSourceFile()).filter((f) => !sfs.includes(f)));
  for (const sf of reached) {
    for (const d of program.getSyntacticDiagnostics(sf)) {
      ctx.report(
        tsDiag('TS001', ts.flattenDiagnosticMessageText(d.messageText, ' '), posOf(ctx.file(sf), d.start ?? 0)),
      );
    }
  }
  const groups = assemble(ctx, kinds, schemas);
  // titled: the schemas are final (the model is read, never changed)
  for (const g of groups) for (const v of g.versions) for (const k of v.kinds) if (k.schema) freezeSchema(k.schema);
  // a protected group's CRDs are declared unapproved (TypeScript has no marker for the review link)
  for (const g of groups) {
    const byKind = new Map<string, CrdFacts>();
    for (const v of g.versions) {
      for (const k of v.kinds) {
        const facts = byKind.get(k.kind) ?? unapprovedFacts(g.name);
        if (!facts) continue;
        byKind.set(k.kind, facts);
        k.crd = facts;
      }
    }
  }
  // What the apiserver would reject, once the TypeScript itself is sound.
  if (options.apiserverChecks !== false && !ctx.diags.some((d) => d.severity === 'error')) {
    ctx.diags.push(...checkKindsAsCrds(groups));
  }
  if (groups.length === 0 && !ctx.diags.some((d) => d.severity === 'error')) {
    // about the whole input set; shown at the top of the first input, as CRD001 is for a CRD file
    const first = files[0]?.display;
    const d = tsDiag('TS013', 'no kinds found: a kind is an interface with apiVersion, kind and metadata', undefined);
    ctx.report(first === undefined ? d : { ...d, file: first, line: 1, col: 1 });
  }
  // the plurals derived from kind names, finished as client-gen's namer would
  const model = applyTypeScriptPlurals({ groups, sources: files.map((f) => f.display) }, options.pluralExceptions);
  return { model, diagnostics: dedupeDiagnostics(ctx.diags) };
}

function createProject(tsconfig: string | undefined): Project {
  const lean: ts.CompilerOptions = { noLib: true, types: [], noEmit: true, skipLibCheck: true };
  if (tsconfig) {
    if (!existsSync(tsconfig)) throw new Error('no such file');
    return new Project({
      tsConfigFilePath: tsconfig,
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
      compilerOptions: lean,
    });
  }
  return new Project({
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    compilerOptions: {
      ...lean,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    },
  });
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

interface GroupVersion {
  group?: string;
  version?: string;
}

const gvCache = new WeakMap<ts.SourceFile, GroupVersion>();

/** File-level markers of a file, falling back to its folder's doc.ts for what it leaves out. */
function groupVersionOf(ctx: ReadCtx, program: ts.Program, sf: ts.SourceFile): GroupVersion {
  const own = fileMarkers(ctx, sf);
  if (own.group !== undefined && own.version !== undefined) return own;
  const docName = join(dirname(sf.fileName), 'doc.ts');
  const doc = resolve(docName) === resolve(sf.fileName) ? undefined : program.getSourceFile(docName);
  const folder = doc ? fileMarkers(ctx, doc) : {};
  const out: GroupVersion = {};
  const group = own.group ?? folder.group;
  const version = own.version ?? folder.version;
  if (group !== undefined) out.group = group;
  if (version !== undefined) out.version = version;
  return out;
}

/** `+groupName` / `+versionName` in the comments at the top of a file (not a declaration's own). */
function fileMarkers(ctx: ReadCtx, sf: ts.SourceFile): GroupVersion {
  const cached = gvCache.get(sf);
  if (cached) return cached;
  const fc = ctx.file(sf);
  const first = sf.statements[0];
  let blocks = leadingBlocks(fc, 0);
  if (first && isDeclaration(first)) blocks = attachedAndDetached(fc, first).detached;
  const out: GroupVersion = {};
  for (const block of blocks) {
    for (const c of block) {
      const raw = markerOf(fc, c);
      if (!raw) continue;
      ctx.consume(raw.pos);
      const m = parseMarker(raw);
      if ('severity' in m) {
        ctx.report(m);
        continue;
      }
      if (!m.def.targets.includes('file')) {
        ctx.report(
          tsDiag(
            'TS006',
            `marker "+${m.def.name}" is not attached to a declaration`,
            raw.pos,
            `it belongs on ${describeTargets(m.def.targets)}`,
          ),
        );
        continue;
      }
      const value = m.value as string;
      if (m.def.name === 'groupName') {
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value)) {
          ctx.report(tsDiag('TS009', `"${value}" is not a DNS subdomain (an API group name)`, raw.pos));
        }
        out.group = value;
      } else out.version = value;
    }
  }
  gvCache.set(sf, out);
  return out;
}

function isDeclaration(s: ts.Statement): boolean {
  return !ts.isImportDeclaration(s) && !ts.isExportDeclaration(s) && !ts.isImportEqualsDeclaration(s);
}

function readStatement(
  ctx: ReadCtx,
  schemas: SchemaReader,
  stmt: ts.Statement,
  gv: GroupVersion,
  kinds: KindDecl[],
  others: (ts.InterfaceDeclaration | ts.TypeAliasDeclaration)[],
): void {
  if (ts.isInterfaceDeclaration(stmt)) {
    if (isListInterface(stmt)) {
      ctx.doc(stmt, ['type']);
      return;
    }
    if (isKindInterface(stmt)) {
      const k = readKind(ctx, schemas, stmt, gv);
      if (k) kinds.push(k);
    } else {
      ctx.doc(stmt, ['type']);
      others.push(stmt);
    }
    return;
  }
  if (ts.isTypeAliasDeclaration(stmt)) {
    ctx.doc(stmt, ['type']);
    others.push(stmt);
    return;
  }
  if (ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt) || ts.isEmptyStatement(stmt)) return;
  const what = ts.isClassDeclaration(stmt)
    ? 'a class'
    : ts.isFunctionDeclaration(stmt)
      ? 'a function'
      : ts.isEnumDeclaration(stmt)
        ? 'an enum'
        : ts.isVariableStatement(stmt)
          ? 'a variable'
          : ts.isModuleDeclaration(stmt)
            ? 'a namespace'
            : 'a statement';
  ctx.report(
    tsDiag(
      'TS002',
      `${what} cannot describe an API type`,
      ctx.pos(stmt),
      ts.isEnumDeclaration(stmt)
        ? "use a union of string literals: 'a' | 'b'"
        : 'API files hold only interfaces, type aliases and imports',
    ),
  );
}

/** Markers in comments that no declaration read: detached by a blank line, or inside bodies. */
function reportUnattached(ctx: ReadCtx, sf: ts.SourceFile): void {
  const fc: FileCtx = ctx.file(sf);
  for (const raw of allMarkerComments(fc).values()) {
    if (ctx.isConsumed(raw.pos)) continue;
    const m = parseMarker(raw);
    if ('severity' in m) {
      ctx.report(m);
      continue;
    }
    const hint = m.def.targets.includes('file')
      ? "put file markers at the top of the file, before the first declaration's own comments"
      : `put it directly above ${describeTargets(m.def.targets)}, with no blank line between`;
    ctx.report(tsDiag('TS006', `marker "+${m.def.name}" is not attached to a declaration`, raw.pos, hint));
  }
}

/** Kinds → groups/versions; checks duplicates and storage versions; sorts. */
function assemble(ctx: ReadCtx, decls: KindDecl[], schemas: SchemaReader): Group[] {
  const byGroupKind = new Map<string, KindDecl[]>();
  for (const d of decls) {
    const key = `${d.group}\0${d.kind.kind}`;
    const list = byGroupKind.get(key) ?? [];
    const dup = list.find((o) => o.version === d.version);
    if (dup) {
      ctx.report(
        tsDiag(
          'TS012',
          `kind ${d.kind.kind} is defined twice in ${d.group}/${d.version}`,
          d.kind.source,
          `the other is at ${dup.kind.source.file}:${dup.kind.source.line}:${dup.kind.source.col}`,
        ),
      );
      continue;
    }
    list.push(d);
    byGroupKind.set(key, list);
  }
  for (const list of byGroupKind.values()) {
    if (list.length === 1) continue;
    const marked = list.filter((d) => d.storageMarker);
    if (marked.length !== 1) {
      ctx.report(
        tsDiag(
          'TS012',
          `kind ${list[0].kind.kind} is in versions ${list.map((d) => d.version).join(', ')}; exactly one needs +kubebuilder:storageversion (found ${marked.length})`,
          (marked[1] ?? list[0]).kind.source,
        ),
      );
    }
    for (const d of list) d.kind.storage = d.storageMarker;
    const first = list[0].kind;
    for (const d of list.slice(1)) {
      const k = d.kind;
      if (k.plural !== first.plural || k.scope !== first.scope || k.singular !== first.singular) {
        ctx.report(
          tsDiag('TS012', `kind ${k.kind} has a different plural, singular or scope in ${d.version}`, k.source),
        );
      }
    }
  }
  const groups = new Map<string, Map<string, Kind[]>>();
  for (const list of byGroupKind.values()) {
    for (const d of list) {
      const versions = groups.get(d.group) ?? new Map<string, Kind[]>();
      groups.set(d.group, versions);
      const kinds = versions.get(d.version) ?? [];
      versions.set(d.version, kinds);
      kinds.push(d.kind);
    }
  }
  return [...groups.keys()].sort(cmp).map((name) => {
    const versions = groups.get(name)!;
    return {
      name,
      versions: [...versions.keys()].sort(compareKubeVersions).map((v) => {
        const kinds = versions.get(v)!.sort((a, b) => cmp(a.kind, b.kind));
        assignTitles(ctx, kinds, schemas.origin, `${name}/${v}`);
        return { name: v, kinds };
      }),
    };
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
