// `crdgen manifests <operator>`: one install.yaml from an operator's kustomize overlay — the
// real `kubectl kustomize <operator>/config/default` (kubectl from PATH or --kubectl), its output
// written atomically to -o (default dist/install.yaml) or to stdout with `-o -`. A missing kubectl,
// a missing overlay or a failed build is a clear error with a non-zero exit and writes nothing.

import { Command } from 'commander';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { CliError, EXIT, type CliContext } from './io.js';
import { commandOf } from './invocation.js';
import { displayPath } from './inputs.js';

/** What `crdgen manifests` takes. */
export interface ManifestsOptions {
  output: string;
  kubectl?: string;
}

/** The default output file, as kubebuilder's `make build-installer` writes it. */
export const DEFAULT_INSTALL_YAML = 'dist/install.yaml';

/** The largest install.yaml read back from kubectl (a CRD of the corpus is under 1 MB). */
const MAX_OUTPUT = 256 * 1024 * 1024;

function isExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The kubectl to run: `--kubectl`, else the first `kubectl` on PATH. */
function findKubectl(given: string | undefined, ctx: CliContext): string {
  const hint =
    'install kubectl (its `kubectl kustomize` builds the overlay; any release since 1.14) or give its path with --kubectl <path>';
  if (given !== undefined) {
    const p = resolve(ctx.io.cwd, given);
    if (!isExecutable(p)) throw new CliError(`--kubectl ${given}: not an executable file\n  hint: ${hint}`, EXIT.usage);
    return p;
  }
  const names = process.platform === 'win32' ? ['kubectl.exe', 'kubectl'] : ['kubectl'];
  for (const dir of (ctx.io.env?.['PATH'] ?? '').split(delimiter))
    for (const name of names) if (dir !== '' && isExecutable(join(dir, name))) return join(dir, name);
  throw new CliError(`kubectl not found on PATH\n  hint: ${hint}`, EXIT.usage);
}

/** The overlay to build: `<operator>/config/default`, or the folder itself when it holds a kustomization. */
function findOverlay(operator: string, ctx: CliContext): string {
  const root = resolve(ctx.io.cwd, operator);
  const hasKustomization = (d: string): boolean =>
    ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].some((f) => {
      try {
        return statSync(join(d, f)).isFile();
      } catch {
        return false;
      }
    });
  for (const d of [join(root, 'config', 'default'), root]) if (hasKustomization(d)) return d;
  throw new CliError(
    `${operator}: no kustomize overlay (config/default/kustomization.yaml) there\n  hint: give an operator's folder, controllers/<kind> under generate's --out; \`${commandOf(ctx.io)} generate --controller <Kind>\` writes it`,
    EXIT.usage,
  );
}

function runKubectl(kubectl: string, args: string[]): Promise<{ stdout: string; stderr: string; error?: Error }> {
  return new Promise((done) => {
    execFile(kubectl, args, { maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (error, stdout, stderr) =>
      done({ stdout, stderr, ...(error ? { error } : {}) }),
    );
  });
}

/** Writes `text` to `target` through a temp file beside it: the old file or nothing, never half of it. */
function writeAtomically(target: string, text: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Builds the overlay of `operator` and writes install.yaml; returns the exit code. */
export async function runManifests(operator: string, opts: ManifestsOptions, ctx: CliContext): Promise<number> {
  const overlay = findOverlay(operator, ctx);
  const kubectl = findKubectl(opts.kubectl, ctx);
  const shown = displayPath(ctx.io.cwd, overlay);
  const r = await runKubectl(kubectl, ['kustomize', overlay]);
  if (r.error) {
    const why = r.stderr.trim() || r.error.message;
    throw new CliError(
      `kubectl kustomize ${shown} failed: ${why}\n  hint: the overlay or a base it names is broken; nothing was written`,
      EXIT.invalidInput,
    );
  }
  // loaded here, not with the CLI: every other command would pay for loading the yaml package
  const { parseAllDocuments } = await import('yaml');
  const docs = parseAllDocuments(r.stdout);
  const objects = docs.filter((d) => d.contents !== null).length;
  if (objects === 0 || docs.some((d) => d.errors.length > 0))
    throw new CliError(
      `kubectl kustomize ${shown} gave ${objects === 0 ? 'no objects' : 'YAML it cannot read back'}; nothing was written`,
      EXIT.invalidInput,
    );
  if (opts.output === '-') ctx.io.stdout(r.stdout);
  else {
    const target = resolve(ctx.io.cwd, opts.output);
    try {
      writeAtomically(target, r.stdout);
    } catch (e) {
      throw new CliError(
        `cannot write ${opts.output}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        EXIT.invalidInput,
      );
    }
    ctx.io.stdout(
      `wrote ${displayPath(ctx.io.cwd, target)}: ${objects} objects from ${shown}\nInstall it with: kubectl apply --server-side -f ${displayPath(ctx.io.cwd, target)}\n`,
    );
  }
  return EXIT.ok;
}

export function createManifestsCommand(ctx: CliContext): Command {
  return new Command('manifests')
    .description(
      "write one install.yaml from an operator's kustomize overlay (kubectl kustomize <operator>/config/default)",
    )
    .argument(
      '<operator>',
      'the operator folder generate wrote (controllers/<kind> under --out), or a kustomization folder',
    )
    .option('-o, --output <file>', "where to write it ('-': standard output)", DEFAULT_INSTALL_YAML)
    .option('--kubectl <path>', 'the kubectl to run (default: kubectl on PATH)')
    .addHelpText(
      'after',
      '\nExample:\n  crdgen manifests src/generated/controllers/databasemanager -o dist/install.yaml\n  kubectl apply --server-side -f dist/install.yaml\n\nExit codes: 0 written, 1 the build failed (nothing written), 2 usage error (no overlay, no kubectl).\n',
    )
    .action(async (operator: string, opts: ManifestsOptions) => {
      ctx.setExitCode(await runManifests(operator, opts, ctx));
    });
}
