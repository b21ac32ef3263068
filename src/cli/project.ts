// The project the generated code goes into: does its package.json and tsconfig.json let it
// compile and run? The generated code is ES modules (the operator's main.ts awaits at top level)
// and imports `crdgen/runtime`, a subpath of crdgen's package.json "exports". That needs
//   - package.json "type": "module" (else Node loads the compiled .js as CommonJS);
//   - tsconfig "module" that emits ES modules with top-level await: nodenext/node16/node18/node20
//     (with "type": "module"), es2022, esnext or preserve;
//   - tsconfig "moduleResolution" that reads "exports": nodenext/node16 or bundler — or, with
//     TypeScript 5, node10 ("node"), which finds the types through crdgen's "typesVersions"
//     (TypeScript 6 deprecates node10, 7 removed it);
//   - Node's types: "types" must list "node" when set — and when absent with TypeScript 6 or
//     newer, whose default is no @types at all — and @types/node must be installed.
// TypeScript's defaults changed in 6.0 (module esnext, moduleResolution bundler, types []): the
// project's installed typescript decides which apply; when none is installed only settings that
// fail under every version are reported.
// `generate` warns (once per project, PRJ00x) with the fix; `crdgen init` offers to write it.
// The tsconfig is read here (comments, trailing commas, "extends" chains) with jsonc-parser, not
// TypeScript: loading typescript costs ~250 ms, half a generate run; anything this reader cannot
// follow is left unchecked rather than guessed.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { findNodeAtLocation, modify, applyEdits, parse, parseTree, type JSONPath, type ParseError } from 'jsonc-parser';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** Where a setting was read: the file, and the offset of its value (or of the file's start when absent). */
interface Origin {
  file: string;
  offset: number;
}

interface Setting<T> {
  value: T;
  at: Origin;
}

/** The compiler options that decide whether the generated code compiles (lower-cased), with where each was set. */
export interface TsSettings {
  file: string;
  module?: Setting<string>;
  moduleResolution?: Setting<string>;
  target?: Setting<string>;
  types?: Setting<string[]>;
}

/** The project around a folder: the nearest package.json, and the nearest tsconfig.json up to its folder. */
export interface Project {
  dir: string;
  packageJson: string;
  tsconfig?: string;
}

/** One thing to change in a project file; `path` is the JSON path to set (`value` undefined: no automatic fix). */
export interface ProjectFix {
  file: string;
  path: JSONPath;
  value: unknown;
  /** Shown to the user: `"type": "commonjs" → "module"`. */
  describe: string;
}

/** A problem found, as a diagnostic (warning), with the fixes `init` would write. */
export interface ProjectFinding {
  diagnostic: Omit<Diagnostic, 'file'> & { file: string };
  fixes: ProjectFix[];
}

/** The nearest package.json at or above `from`, and the nearest tsconfig.json between `from` and that folder. */
export function findProject(from: string): Project | undefined {
  let tsconfig: string | undefined;
  for (let d = resolve(from); ; d = dirname(d)) {
    if (tsconfig === undefined && existsSync(join(d, 'tsconfig.json'))) tsconfig = join(d, 'tsconfig.json');
    if (existsSync(join(d, 'package.json')))
      return { dir: d, packageJson: join(d, 'package.json'), ...(tsconfig !== undefined ? { tsconfig } : {}) };
    if (dirname(d) === d) return undefined;
  }
}

function readJsonc(file: string): { value: unknown; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  return errors.length > 0 ? undefined : { value, text };
}

function offsetOf(text: string, path: JSONPath): number {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const node = tree ? findNodeAtLocation(tree, path) : undefined;
  return node?.offset ?? 0;
}

/** Where `extends: spec` in `file` points, or undefined when it cannot be found. */
function resolveExtends(spec: string, file: string): string | undefined {
  const dir = dirname(file);
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const p = resolve(dir, spec);
    if (existsSync(p) && !p.endsWith('/')) return p;
    return existsSync(`${p}.json`) ? `${p}.json` : undefined;
  }
  const req = createRequire(join(dir, 'tsconfig.json'));
  for (const s of [spec, `${spec}/tsconfig.json`, `${spec}.json`]) {
    try {
      return req.resolve(s);
    } catch {
      // try the next form
    }
  }
  return undefined;
}

/** The compiler options of `file`, its "extends" chain applied; undefined when any file of it cannot be read. */
export function readTsSettings(file: string, seen: ReadonlySet<string> = new Set()): TsSettings | undefined {
  if (seen.has(file) || seen.size > 20) return undefined;
  const read = readJsonc(file);
  if (!read || typeof read.value !== 'object' || read.value === null) return undefined;
  const cfg = read.value as { extends?: unknown; compilerOptions?: Record<string, unknown> };
  const out: TsSettings = { file };
  const bases = typeof cfg.extends === 'string' ? [cfg.extends] : Array.isArray(cfg.extends) ? cfg.extends : [];
  for (const b of bases) {
    if (typeof b !== 'string') return undefined;
    const p = resolveExtends(b, file);
    const base = p === undefined ? undefined : readTsSettings(p, new Set([...seen, file]));
    if (!base) return undefined;
    for (const k of ['module', 'moduleResolution', 'target', 'types'] as const)
      if (base[k]) (out as unknown as Record<string, unknown>)[k] = base[k];
  }
  const co = cfg.compilerOptions ?? {};
  const at = (key: string): Origin => ({ file, offset: offsetOf(read.text, ['compilerOptions', key]) });
  for (const k of ['module', 'moduleResolution', 'target'] as const) {
    if (typeof co[k] === 'string') out[k] = { value: co[k].toLowerCase(), at: at(k) };
  }
  if (Array.isArray(co['types']))
    out.types = { value: co['types'].filter((t): t is string => typeof t === 'string'), at: at('types') };
  return out;
}

/** Module kinds whose output is ES modules with top-level await (node16+ with "type": "module"). */
const ESM_MODULES = new Set(['es2022', 'esnext', 'node16', 'node18', 'node20', 'nodenext', 'preserve']);
/** Resolution modes that find `crdgen/runtime` with every TypeScript version crdgen supports. */
const GOOD_RESOLUTION = new Set(['node16', 'nodenext', 'bundler']);
/** node10: finds the types through crdgen's typesVersions, with TypeScript 5 (deprecated in 6, removed in 7). */
const NODE10 = new Set(['node10', 'node']);

/**
 * The module and moduleResolution TypeScript `major` uses for `ts` (its defaults filled in);
 * undefined for a default that depends on the version when the version is unknown.
 */
function effective(ts: TsSettings, major: number | undefined): { module?: string; moduleResolution?: string } {
  let module = ts.module?.value;
  if (module === undefined && major !== undefined) {
    const target = ts.target?.value ?? 'es5';
    module = major >= 6 ? 'esnext' : target === 'es3' || target === 'es5' ? 'commonjs' : 'es2015';
  }
  let moduleResolution = ts.moduleResolution?.value;
  if (moduleResolution === undefined && module !== undefined) {
    if (module === 'node16') moduleResolution = 'node16';
    else if (module.startsWith('node')) moduleResolution = 'nodenext';
    else if (module === 'preserve') moduleResolution = 'bundler';
    else if (major !== undefined)
      moduleResolution = major >= 6 ? 'bundler' : module === 'commonjs' ? 'node10' : 'classic';
  }
  return {
    ...(module !== undefined ? { module } : {}),
    ...(moduleResolution !== undefined ? { moduleResolution } : {}),
  };
}

/** The major version of the typescript installed for the project at `dir`, if any. */
export function typescriptMajor(dir: string): number | undefined {
  try {
    const p = createRequire(join(dir, 'package.json')).resolve('typescript/package.json');
    const v = (JSON.parse(readFileSync(p, 'utf8')) as { version?: unknown }).version;
    const m = typeof v === 'string' ? /^(\d+)\./.exec(v) : null;
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function lineCol(file: string, offset: number): { line: number; col: number } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { line: 1, col: 1 };
  }
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}

/**
 * Checks the project at `project` for the settings the generated code needs; `command` is how
 * the user runs crdgen (for the hint naming `init --yes`). No findings when it is fine, or when a
 * file cannot be read (nothing is guessed).
 */
export function checkProject(project: Project, command: string): ProjectFinding[] {
  const findings: ProjectFinding[] = [];
  const initHint = `${command} init --yes writes it`;
  const pkgRead = readJsonc(project.packageJson);
  if (!pkgRead || typeof pkgRead.value !== 'object' || pkgRead.value === null) return findings;
  const pkg = pkgRead.value as { type?: unknown };
  const ts = project.tsconfig !== undefined ? readTsSettings(project.tsconfig) : undefined;
  const major = typescriptMajor(project.dir);
  const eff = ts ? effective(ts, major) : undefined;
  // a project that says it bundles (bundler resolution, module preserve) has the bundler decide the
  // output format; everything else runs what tsc (or tsx) emits
  const bundled = ts?.moduleResolution?.value === 'bundler' || ts?.module?.value === 'preserve';
  if (pkg.type !== 'module' && !bundled) {
    const now = typeof pkg.type === 'string' ? `"type": ${JSON.stringify(pkg.type)}` : 'no "type"';
    findings.push({
      diagnostic: {
        severity: 'warning',
        code: 'PRJ001',
        file: project.packageJson,
        ...lineCol(project.packageJson, offsetOf(pkgRead.text, ['type'])),
        message: `package.json has ${now}: Node would load the generated code, which is ES modules, as CommonJS`,
        hint: `set "type": "module" (${initHint})`,
      },
      fixes: [{ file: project.packageJson, path: ['type'], value: 'module', describe: `${now} → "type": "module"` }],
    });
  }
  if (ts && eff) {
    const fixModule: ProjectFix[] = [
      {
        file: ts.file,
        path: ['compilerOptions', 'module'],
        value: 'nodenext',
        describe: `"module": ${JSON.stringify(ts.module?.value ?? eff.module)} → "nodenext"`,
      },
      {
        file: ts.file,
        path: ['compilerOptions', 'moduleResolution'],
        value: 'nodenext',
        describe: `"moduleResolution": ${JSON.stringify(ts.moduleResolution?.value ?? eff.moduleResolution)} → "nodenext"`,
      },
    ];
    const at = (s: Setting<unknown> | undefined): { file: string; line: number; col: number } =>
      s
        ? { file: s.at.file, ...lineCol(s.at.file, s.at.offset) }
        : { file: ts.file, ...lineCol(ts.file, offsetOf(readFileSync(ts.file, 'utf8'), ['compilerOptions'])) };
    const moduleBad = eff.module !== undefined && !ESM_MODULES.has(eff.module);
    const node10 = eff.moduleResolution !== undefined && NODE10.has(eff.moduleResolution);
    const resolutionBad =
      eff.moduleResolution !== undefined &&
      !GOOD_RESOLUTION.has(eff.moduleResolution) &&
      !(node10 && (major === undefined || major < 6));
    if (moduleBad) {
      findings.push({
        diagnostic: {
          severity: 'warning',
          code: 'PRJ002',
          ...at(ts.module),
          message: `tsconfig "module" is ${JSON.stringify(eff.module)}${ts.module ? '' : ' (the default)'}: the generated code needs ES modules with top-level await`,
          hint: `set "module": "nodenext" and "moduleResolution": "nodenext" (${initHint})`,
        },
        fixes: fixModule,
      });
    }
    if (resolutionBad) {
      findings.push({
        diagnostic: {
          severity: 'warning',
          code: 'PRJ003',
          ...at(ts.moduleResolution ?? ts.module),
          message: node10
            ? `tsconfig "moduleResolution" is ${JSON.stringify(eff.moduleResolution)}${ts.moduleResolution ? '' : ' (the default)'}: TypeScript ${major} ${major! >= 7 ? 'removed it' : 'deprecates it'}, and without it 'crdgen/runtime' is not found (TS2307)`
            : `tsconfig "moduleResolution" is ${JSON.stringify(eff.moduleResolution)}${ts.moduleResolution ? '' : ' (the default)'}: TypeScript will not find 'crdgen/runtime' (TS2307)`,
          hint: `set "module": "nodenext" and "moduleResolution": "nodenext" (${initHint})`,
        },
        fixes: moduleBad ? [] : fixModule,
      });
    }
    if (ts.types && !ts.types.value.includes('node')) {
      findings.push({
        diagnostic: {
          severity: 'warning',
          code: 'PRJ004',
          ...at(ts.types),
          message: `tsconfig "types" leaves out "node": the generated code uses Node's types (process, Buffer)`,
          hint: `add "node" to "types" (${initHint})`,
        },
        fixes: [
          {
            file: ts.file,
            path: ['compilerOptions', 'types'],
            value: [...ts.types.value, 'node'],
            describe: `"types": ${JSON.stringify(ts.types.value)} → ${JSON.stringify([...ts.types.value, 'node'])}`,
          },
        ],
      });
    } else if (!ts.types && major !== undefined && major >= 6) {
      findings.push({
        diagnostic: {
          severity: 'warning',
          code: 'PRJ004',
          ...at(undefined),
          message: `tsconfig has no "types": TypeScript ${major} then loads no @types, and the generated code uses Node's types (process, Buffer)`,
          hint: `set "types": ["node"] (${initHint})`,
        },
        fixes: [
          {
            file: ts.file,
            path: ['compilerOptions', 'types'],
            value: ['node'],
            describe: 'no "types" → "types": ["node"]',
          },
        ],
      });
    } else if (!hasPackage(project.dir, '@types/node')) {
      findings.push({
        diagnostic: {
          severity: 'warning',
          code: 'PRJ004',
          file: project.packageJson,
          line: 1,
          col: 1,
          message: `@types/node is not installed: the generated code uses Node's types (process, Buffer)`,
          hint: 'npm install --save-dev @types/node',
        },
        fixes: [],
      });
    }
  }
  return findings;
}

function hasPackage(dir: string, name: string): boolean {
  try {
    createRequire(join(dir, 'package.json')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** `text` (JSON with comments) with each fix applied, formatting and comments kept. */
export function applyFixes(text: string, fixes: readonly ProjectFix[]): string {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  let out = text;
  for (const f of fixes) {
    const edits = modify(out, f.path, f.value, {
      formattingOptions: {
        insertSpaces: !indent.includes('\t'),
        tabSize: indent.includes('\t') ? 1 : indent.length,
        eol: '\n',
      },
    });
    out = applyEdits(out, edits);
  }
  return out;
}

/** An npm package name made from a folder name (lower case, [a-z0-9._-], not starting with . or _). */
export function packageNameFor(dir: string): string {
  const n = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '');
  return n === '' ? 'operator' : n.slice(0, 214);
}

/** The tsconfig.json `crdgen init` writes into a project that has none: src/ → dist/, ES modules, strict. */
export const STARTER_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;

/** The test script `npm init` writes: a placeholder `crdgen init` replaces. */
export const NPM_PLACEHOLDER_TEST = 'echo "Error: no test specified" && exit 1';

/**
 * The `test` script `crdgen init` writes: build, then node's test runner in the compiled output
 * (`outDir`), where it finds every `*.test.js` — the generated controllers' reconcile.test.ts
 * among them. Run there, not at the root: a Node.js that strips types would also pick up the
 * `.test.ts` sources, whose `.js` imports only resolve once compiled.
 */
export function testScript(outDir = 'dist'): string {
  const dir = outDir.replace(/\/+$/, '');
  // no outDir (the .js beside the .ts), or one a shell would read otherwise: from the root
  if (dir === '' || dir === '.' || !/^[A-Za-z0-9._/-]+$/.test(dir) || dir.startsWith('-'))
    return 'npm run build && node --test';
  return `npm run build && cd ${dir} && node --test`;
}

/** The package.json `crdgen init` writes into a folder that has none. */
export function starterPackageJson(dir: string): string {
  return `${JSON.stringify({ name: packageNameFor(dir), version: '0.1.0', private: true, type: 'module', scripts: { generate: 'crdgen generate', build: 'tsc', test: testScript() } }, null, 2)}\n`;
}

/** `compilerOptions.outDir` of the tsconfig.json at `path` (comments allowed), if it sets one as a string. */
export function tsconfigOutDir(path: string): string | undefined {
  try {
    const cfg = parse(readFileSync(path, 'utf8')) as { compilerOptions?: { outDir?: unknown } } | undefined;
    const out = cfg?.compilerOptions?.outDir;
    return typeof out === 'string' ? out.replace(/^\.\//, '') : undefined;
  } catch {
    return undefined;
  }
}
