// `crdgen init [--example] [--yes | --no-project] [--force]`: writes a starter crdgen.config.yaml
// into the current folder and creates the crds/ it reads (with --example, the DatabaseManager CRD
// in it), then sets the folder up as a project the generated code compiles and runs in, as
// `cdk8s init` does: a package.json ("type": "module", generate/build scripts) and a tsconfig.json
// (nodenext, strict, src → dist) where there are none, and the settings the generated code needs
// changed in the ones there are (project.ts). It asks first on a terminal; --yes writes without
// asking (CI, tests); --no-project never touches them; without a terminal it lists what is needed.
// Files that already hold what init would write are left alone; anything else is refused unless
// --force. It says what it did: each file written, each change to an existing one, the folder
// created.

import { Command } from 'commander';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_FILE_NAMES } from '../config/discover.js';
import { GENERATORS } from '../generate/generators.js';
import { CliError, EXIT, type CliContext } from './io.js';
import { commandOf } from './invocation.js';

/** Where the example CRD ships (templates/init/ in the package). */
export const EXAMPLE_CRD_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'templates',
  'init',
  'databasemanager.yaml',
);

/** `# `-commented lines of at most ~100 characters listing `words`. */
function wrapList(words: readonly string[], lead: string): string {
  const lines: string[] = [];
  let line = lead;
  for (const [i, w] of words.entries()) {
    const item = `${w}${i === words.length - 1 ? '.' : ','}`;
    if (line.length + item.length + 1 > 98 && line.trim() !== '#') {
      lines.push(line);
      line = `#   ${item}`;
    } else line += `${line.endsWith(' ') ? '' : ' '}${item}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** The folder the starter config reads CRDs from (its `inputs`). */
export const STARTER_INPUTS = 'crds';

/** The starter config `crdgen init` writes. */
export function starterConfig(example: boolean): string {
  const defaults = GENERATORS.filter((g) => !g.optIn).map((g) => g.name);
  const optIn = GENERATORS.filter((g) => g.optIn).map((g) => g.name);
  return `# yaml-language-server: $schema=./node_modules/crdgen/schema/crdgen.config.schema.json
# crdgen configuration. \`npx crdgen generate\` reads it (flags override it);
# \`npx crdgen verify\` checks in CI that the generated code is up to date.

# CRD YAML files, folders or globs (or annotated .ts files), relative to this file.
inputs:
  - ${STARTER_INPUTS}/
# Output folder: crdgen writes only here, and removes files it generated earlier
# that are no longer produced. Files without its header are never touched.
out: src/generated

# Generators. Default: all but ${optIn.join(', ')}:
${wrapList(defaults, '#  ')}
# Opt-in: ${optIn.join(', ')}. List names to run exactly those (and what they need), or change
# the defaults: [+crd] adds the CRD YAML, [-fake] leaves the fake clientset out.
# generators: [+crd]

# Kinds that get an operator under <out>/controllers/<kind>/.
${example ? 'controllers:\n  - DatabaseManager\n' : '# controllers:\n#   - DatabaseManager\n'}
# Client verbs per kind (client-gen's +genclient markers):
# kinds:
#   DatabaseManager:
#     skipVerbs: [deleteCollection]

# Plural of a kind in generated names: Kind: Plural
# pluralExceptions:
#   Endpoints: Endpoints

# A licence, as comments, above the generated header of each TypeScript file.
# headerFile: hack/boilerplate.ts.txt

# Several outputs from one config: list targets (top-level settings are their defaults).
# targets:
#   - { inputs: [crds/apps/], out: src/generated/apps }
#   - { inputs: [crds/batch/], out: src/generated/batch }
`;
}

/** Options of `crdgen init`. */
export interface InitOptions {
  example?: boolean;
  force?: boolean;
  /** Write the project settings without asking. */
  yes?: boolean;
  /** `--no-project` sets it false: never touch package.json/tsconfig.json. */
  project?: boolean;
}

/** One file init writes or changes, with what to show for it. */
interface Planned {
  path: string;
  text: string;
  /** Lines describing the change (project files), shown before asking. */
  changes?: string[];
  /** The file exists and init changes it (the changes are said, not only its name). */
  edits?: boolean;
}

/** What `init` does to package.json and tsconfig.json in `cwd` (none when they already fit). */
async function projectPlan(cwd: string, command: string): Promise<Planned[]> {
  const {
    applyFixes,
    checkProject,
    NPM_PLACEHOLDER_TEST,
    STARTER_TSCONFIG,
    starterPackageJson,
    testScript,
    tsconfigOutDir,
  } = await import('./project.js');
  const pkgPath = join(cwd, 'package.json');
  const tsPath = join(cwd, 'tsconfig.json');
  const out: Planned[] = [];
  const hasPkg = existsSync(pkgPath);
  const hasTs = existsSync(tsPath);
  const findings = hasPkg
    ? checkProject({ dir: cwd, packageJson: pkgPath, ...(hasTs ? { tsconfig: tsPath } : {}) }, command)
    : [];
  if (!hasPkg)
    out.push({
      path: 'package.json',
      text: starterPackageJson(cwd),
      changes: ['create it: "type": "module", scripts generate (crdgen generate), build (tsc) and test (node --test)'],
    });
  else {
    const text = readFileSync(pkgPath, 'utf8');
    const fixes = findings.flatMap((f) => f.fixes).filter((f) => f.file === pkgPath);
    const pkg = JSON.parse(text) as { scripts?: Record<string, unknown> };
    const test = testScript(hasTs ? (tsconfigOutDir(tsPath) ?? '') : 'dist');
    const scripts = [
      ['generate', 'crdgen generate'],
      ['build', 'tsc'],
      ['test', test],
    ].filter(([k]) => pkg.scripts?.[k] === undefined || (k === 'test' && pkg.scripts[k] === NPM_PLACEHOLDER_TEST));
    const all = [
      ...fixes,
      ...scripts.map(([k, v]) => ({
        file: pkgPath,
        path: ['scripts', k],
        value: v,
        describe: `scripts.${k}: ${JSON.stringify(v)}`,
      })),
    ];
    if (all.length > 0)
      out.push({ path: 'package.json', text: applyFixes(text, all), changes: all.map((f) => f.describe), edits: true });
  }
  if (!hasTs)
    out.push({
      path: 'tsconfig.json',
      text: STARTER_TSCONFIG,
      changes: ['create it: "module"/"moduleResolution": "nodenext", "strict": true, src/ → dist/'],
    });
  else {
    const seen = new Set<string>();
    const fixes = findings
      .flatMap((f) => f.fixes)
      .filter((f) => f.file === tsPath && !seen.has(f.path.join('.')) && seen.add(f.path.join('.')));
    if (fixes.length > 0)
      out.push({
        path: 'tsconfig.json',
        text: applyFixes(readFileSync(tsPath, 'utf8'), fixes),
        changes: fixes.map((f) => f.describe),
        edits: true,
      });
  }
  return out;
}

/** Result of {@link runInit}: files written (relative), and project changes left for the user. */
export interface InitResult {
  /** Files created, overwritten or changed, in the order written. */
  written: string[];
  /** Of those, the existing files init changed, with each change (`"type": "commonjs" → "type": "module"`). */
  changed: Map<string, string[]>;
  /** Folders the config points at that init created (crds/, empty without --example). */
  created: string[];
  /** Files that already held what init writes. */
  unchanged: string[];
  /** Project changes that were needed but not written (no terminal to ask, no --yes; or declined). */
  skipped: Array<{ path: string; changes: string[] }>;
}

/**
 * Writes the starter files into `cwd`. `confirm` asks the user (absent: no terminal). Files that
 * already hold what init writes count as written; others are refused unless `force`.
 */
export async function runInit(
  cwd: string,
  opts: InitOptions,
  command = 'npx crdgen',
  confirm?: (question: string) => Promise<boolean>,
): Promise<InitResult> {
  const files: Planned[] = [{ path: 'crdgen.config.yaml', text: starterConfig(opts.example === true) }];
  if (opts.example) files.push({ path: 'crds/databasemanager.yaml', text: readFileSync(EXAMPLE_CRD_PATH, 'utf8') });
  const same = (p: string, text: string): boolean =>
    existsSync(join(cwd, p)) && readFileSync(join(cwd, p), 'utf8') === text;
  const otherConfigs = CONFIG_FILE_NAMES.filter((n) => n !== 'crdgen.config.yaml' && existsSync(join(cwd, n)));
  const clash = [
    ...otherConfigs,
    ...files.filter((f) => existsSync(join(cwd, f.path)) && !same(f.path, f.text)).map((f) => f.path),
  ];
  if (clash.length > 0 && !opts.force)
    throw new CliError(
      `${[...new Set(clash)].join(', ')} already exist(s); use --force to overwrite`,
      EXIT.invalidInput,
    );
  const skipped: InitResult['skipped'] = [];
  if (opts.project !== false) {
    const plan = await projectPlan(cwd, command);
    if (plan.length > 0) {
      let write = opts.yes === true;
      if (!write && confirm) {
        const list = plan.map((p) => `  ${p.path}:\n${(p.changes ?? []).map((c) => `    ${c}\n`).join('')}`).join('');
        write = await confirm(
          `The generated code is ES modules and imports crdgen/runtime; this project needs:\n${list}Write these settings? [Y/n] `,
        );
      }
      if (write) files.push(...plan);
      else skipped.push(...plan.map((p) => ({ path: p.path, changes: p.changes ?? [] })));
    }
  }
  const written: string[] = [];
  const changed: InitResult['changed'] = new Map();
  const unchanged: string[] = [];
  for (const f of files) {
    if (same(f.path, f.text)) {
      unchanged.push(f.path);
      continue;
    }
    written.push(f.path);
    if (f.edits) changed.set(f.path, f.changes ?? []);
    await mkdir(dirname(join(cwd, f.path)), { recursive: true });
    await writeFile(join(cwd, f.path), f.text);
  }
  // the folder the config's inputs name: there from the start, so that `generate` finds it
  const created: string[] = [];
  if (!existsSync(join(cwd, STARTER_INPUTS))) {
    await mkdir(join(cwd, STARTER_INPUTS), { recursive: true });
    created.push(`${STARTER_INPUTS}/`);
  }
  return { written, changed, created, unchanged, skipped };
}

function hasYaml(dir: string): boolean {
  try {
    return readdirSync(dir, { recursive: true }).some((f) => /\.ya?ml$/i.test(String(f)));
  } catch {
    return false;
  }
}

/** Factory for the `init` command. */
export function createInitCommand(ctx: CliContext): Command {
  return new Command('init')
    .description(
      'write a starter crdgen.config.yaml into the current folder, and set the folder up as a project the generated code compiles in (package.json, tsconfig.json)',
    )
    .option(
      '--example',
      'also write the DatabaseManager example CRD (crds/databasemanager.yaml) and generate its controller',
    )
    .option(
      '-y, --yes',
      'write the package.json and tsconfig.json settings without asking ("type": "module", module/moduleResolution nodenext, strict; created when missing)',
    )
    .option('--no-project', 'leave package.json and tsconfig.json alone')
    .option('--force', 'overwrite an existing crdgen config')
    .addHelpText('after', () => `\nThen: ${commandOf(ctx.io)} generate\n`)
    .action(async (opts: InitOptions) => {
      const command = commandOf(ctx.io);
      const { written, changed, created, unchanged, skipped } = await runInit(
        ctx.io.cwd,
        opts,
        command,
        ctx.io.confirm,
      );
      for (const p of written) {
        const changes = changed.get(p);
        ctx.io.stdout(changes ? `changed ${p}:\n${changes.map((l) => `  ${l}\n`).join('')}` : `wrote ${p}\n`);
      }
      for (const d of created) ctx.io.stdout(`created ${d} (empty: the config reads CRDs from it)\n`);
      for (const p of unchanged) ctx.io.stdout(`unchanged ${p}\n`);
      if (skipped.length > 0) {
        ctx.io.stdout(
          `\nproject settings not written (no terminal to ask on; ${command} init --yes writes them):\n${skipped.map((s) => `  ${s.path}:\n${s.changes.map((c) => `    ${c}\n`).join('')}`).join('')}\n`,
        );
      }
      const pkg = join(ctx.io.cwd, 'package.json');
      const deps = existsSync(pkg)
        ? ((): Record<string, unknown> => {
            try {
              const j = JSON.parse(readFileSync(pkg, 'utf8')) as {
                dependencies?: Record<string, unknown>;
                devDependencies?: Record<string, unknown>;
              };
              return { ...j.dependencies, ...j.devDependencies };
            } catch {
              return {};
            }
          })()
        : {};
      // crdgen is a dependency: the generated code imports crdgen/runtime when it runs
      if (deps['crdgen'] === undefined) ctx.io.stdout('next: npm install crdgen\n');
      const dev = ['typescript', '@types/node'].filter((n) => deps[n] === undefined);
      if (dev.length > 0) ctx.io.stdout(`next: npm install --save-dev ${dev.join(' ')}\n`);
      if (!opts.example && !hasYaml(join(ctx.io.cwd, STARTER_INPUTS)))
        ctx.io.stdout(`next: put your CRD YAML files into ${STARTER_INPUTS}/\n`);
      ctx.io.stdout(`next: ${command} generate (and ${command} verify in CI), then npm run build\n`);
      ctx.setExitCode(EXIT.ok);
    });
}
