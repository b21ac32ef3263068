// `crdgen init [--example]`: writes a starter crdgen.config.yaml into the current
// folder (and, with --example, the DatabaseManager CRD under crds/). Refuses to
// overwrite anything unless --force.

import { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_FILE_NAMES } from '../config/discover.js';
import { CliError, EXIT, type CliContext } from './io.js';

/** Where the example CRD ships (templates/init/ in the package). */
export const EXAMPLE_CRD_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'templates', 'init', 'databasemanager.yaml');

/** The starter config `crdgen init` writes. */
export function starterConfig(example: boolean): string {
  return `# yaml-language-server: $schema=./node_modules/crdgen/schema/crdgen.config.schema.json
# crdgen configuration. \`npx crdgen generate\` reads it (flags override it);
# \`npx crdgen verify\` checks in CI that the generated code is up to date.

# CRD YAML files, folders or globs (or annotated .ts files), relative to this file.
inputs:
  - crds/
# Output folder: crdgen writes only here, and removes files it generated earlier
# that are no longer produced. Files without its header are never touched.
out: src/generated

# Generators (default: all but crd): types, deepcopy, register, clientset, fake,
# listers, informers, applyconfig, controller, crd.
# generators: [types, deepcopy, register, clientset, fake, listers, informers]

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

/** Writes the starter files into `cwd`; returns the paths written (relative). */
export async function runInit(cwd: string, opts: { example?: boolean; force?: boolean }): Promise<string[]> {
  const existing = CONFIG_FILE_NAMES.filter((n) => existsSync(join(cwd, n)));
  const files: Array<[string, string]> = [['crdgen.config.yaml', starterConfig(opts.example === true)]];
  if (opts.example) files.push(['crds/databasemanager.yaml', readFileSync(EXAMPLE_CRD_PATH, 'utf8')]);
  const clash = [...existing, ...files.map(([p]) => p).filter((p) => p !== 'crdgen.config.yaml' && existsSync(join(cwd, p)))];
  if (clash.length > 0 && !opts.force) throw new CliError(`${[...new Set(clash)].join(', ')} already exist(s); use --force to overwrite`, EXIT.invalidInput);
  for (const [p, text] of files) {
    await mkdir(dirname(join(cwd, p)), { recursive: true });
    await writeFile(join(cwd, p), text);
  }
  return files.map(([p]) => p);
}

/** Factory for the `init` command. */
export function createInitCommand(ctx: CliContext): Command {
  return new Command('init')
    .description('write a starter crdgen.config.yaml into the current folder')
    .option('--example', 'also write the DatabaseManager example CRD (crds/databasemanager.yaml) and generate its controller')
    .option('--force', 'overwrite existing files')
    .addHelpText('after', '\nThen: npx crdgen generate\n')
    .action(async (opts: { example?: boolean; force?: boolean }) => {
      const written = await runInit(ctx.io.cwd, opts);
      for (const p of written) ctx.io.stdout(`wrote ${p}\n`);
      ctx.io.stdout('next: npx crdgen generate (and npx crdgen verify in CI)\n');
      ctx.setExitCode(EXIT.ok);
    });
}
