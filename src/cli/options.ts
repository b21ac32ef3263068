// One place where command-line flags and the config file become the options of a
// run: a list of targets (inputs → out, with generators, client options,
// controllers, header file, runtime import). Flags override the config; the config
// overrides the defaults. Paths in a config resolve against its folder.

import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { findConfigFile } from '../config/discover.js';
import type { ConfigTarget, KindConfig } from '../config/types.js';
import { DEFAULT_RUNTIME_IMPORT } from '../generate/emitter.js';
import { DEFAULT_EMITTERS, EMITTERS, selectEmitters, type EmitterEntry } from '../generate/registry.js';
import { staleFilter } from '../generate/ownership.js';
import {
  ClientOptionsError,
  parseClientOptionFlags,
  type ClientGenOptions,
  type KindClientOptions,
} from '../generate/client-options.js';
import { displayPath } from './inputs.js';
import { CliError, EXIT, type CliIo } from './io.js';
import type { OutputFlags } from './report.js';
import { commandOf } from './invocation.js';

/** Options of generate/verify/validate as commander parses them. */
export interface GenerateFlags extends OutputFlags {
  out?: string;
  runtimeImport?: string;
  generators?: string;
  clean?: boolean;
  tsconfig?: string;
  /** Client generator flags: `--verbs Kind=get,list`, `--skip-verbs`, `--readonly`, `--skip-status`, `--plural-exceptions`. */
  verbs?: string[];
  skipVerbs?: string[];
  readonly?: string[];
  skipStatus?: string[];
  pluralExceptions?: string[];
  /** Kinds that get an operator: `--controller DatabaseManager` (repeatable; `group/Kind` when ambiguous). */
  controller?: string[];
  /** `--webhooks`: the operators serve admission and conversion webhooks. */
  webhooks?: boolean;
  /** `--starter <name>`: the starter that writes the operators' reconcile.ts (starters/<name>/, or `generic`). */
  starter?: string;
  /** Kinds the controllers own: `--owns apps/v1/Deployment,v1/Service` (repeatable, comma-separated). */
  owns?: string[];
  /** `--config <file>`: the config to use (else found by walking up, when no inputs are given). */
  config?: string;
  /** `--header-file <file>`: boilerplate above the generated header. */
  headerFile?: string;
  /** `--format`: run the project's prettier over generated TypeScript. */
  format?: boolean;
}

/** Everything one target of a run needs; paths absolute except `inputs`, which resolve against `cwd`. */
export interface ResolvedTarget {
  /** For messages: the config target's name, or the out folder as shown to the user. */
  name: string;
  /** Folder inputs resolve against and input paths are shown relative to (in `// Source:` lines). */
  cwd: string;
  inputs: string[];
  /** Absolute output folder (absent for validate without one). */
  out?: string;
  emitters: readonly EmitterEntry[];
  client: ClientGenOptions;
  controllers: string[];
  /** The operators serve admission and conversion webhooks (`--webhooks`, `webhooks: true`). */
  webhooks: boolean;
  /** The operators run sharded (`sharding: true`): manager.yaml and rbac.yaml change. */
  sharding: boolean;
  owns: string[];
  /** The starter of the operators' reconcile.ts (`--starter`, `starter:`); unset: picked by kind. */
  starter?: string;
  /** The base of the operators' image (`image: { base }`); unset: the default. */
  imageBase?: string;
  runtimeImport: string;
  clean: boolean;
  tsconfig?: string;
  headerFile?: string;
  format: boolean;
  /** The config file (absolute) whose `controllers:` say which kinds get an operator; absent: the command line says. */
  controllersFrom?: string;
}

/** Result of {@link resolveTargets}: targets, or config diagnostics (then no targets). */
export interface Resolution {
  targets: ResolvedTarget[];
  diagnostics: Diagnostic[];
  /** The config file used, absolute. */
  configFile?: string;
  /** What the run says before it runs: how the command line's inputs and the config combine. */
  notes: string[];
}

/** Which flags were given on the command line (not defaults). */
export type FlagGiven = (name: keyof GenerateFlags) => boolean;

function usage(message: string): never {
  throw new CliError(message, EXIT.usage);
}

function kindOptions(k: KindConfig): KindClientOptions {
  const o: KindClientOptions = {};
  if (k.verbs) o.onlyVerbs = [...k.verbs];
  if (k.skipVerbs) o.skipVerbs = [...k.skipVerbs];
  if (k.readonly !== undefined) o.readonly = k.readonly;
  if (k.noStatus !== undefined) o.noStatus = k.noStatus;
  return o;
}

/** Config client options overlaid with the flags' (a flag wins per kind and field). */
function clientOptions(cfg: ConfigTarget | undefined, flags: GenerateFlags): ClientGenOptions {
  let fromFlags: ClientGenOptions;
  try {
    fromFlags = parseClientOptionFlags({
      verbs: flags.verbs ?? [],
      skipVerbs: flags.skipVerbs ?? [],
      readonly: flags.readonly ?? [],
      noStatus: flags.skipStatus ?? [],
      pluralExceptions: flags.pluralExceptions ?? [],
    });
  } catch (e) {
    if (e instanceof ClientOptionsError) usage(e.message);
    throw e;
  }
  const kinds: Record<string, KindClientOptions> = {};
  for (const [k, v] of Object.entries(cfg?.kinds ?? {})) kinds[k] = kindOptions(v);
  for (const [k, v] of Object.entries(fromFlags.kinds ?? {})) kinds[k] = { ...kinds[k], ...v };
  const plurals = { ...(cfg?.pluralExceptions ?? {}), ...(fromFlags.pluralExceptions ?? {}) };
  const out: ClientGenOptions = {};
  if (Object.keys(kinds).length > 0) out.kinds = kinds;
  if (Object.keys(plurals).length > 0) out.pluralExceptions = plurals;
  return out;
}

/**
 * The generators a run uses. `list` (the flag's, else the config's) is either names — exactly
 * those, plus what they require — or changes to the base: `+crd` adds, `-fake` leaves out, `all`
 * is every generator (opt-in ones too). The base of a flag's changes is the config's list when it
 * has one, else the defaults (all but opt-in); the base of a config's changes is the defaults.
 */
export function resolveGenerators(
  list: readonly string[] | undefined,
  base: readonly string[] | undefined = undefined,
): readonly EmitterEntry[] {
  const start = base === undefined ? DEFAULT_EMITTERS : resolveGenerators(base);
  if (list === undefined) return start;
  const relative = list.filter((x) => x.startsWith('+') || x.startsWith('-'));
  try {
    if (relative.length === 0)
      return selectEmitters(list.flatMap((x) => (x === 'all' ? EMITTERS.map((e) => e.name) : [x])));
    const plain = list.filter((x) => !relative.includes(x) && x !== 'all');
    if (plain.length > 0)
      usage(
        `generators: ${plain.join(', ')} cannot be mixed with +name/-name changes; write +${plain[0]} to add it to the defaults, or list only names`,
      );
    const names = new Set(list.includes('all') ? EMITTERS.map((e) => e.name) : start.map((e) => e.name));
    const removed = new Set<string>();
    for (const x of relative) {
      const name = x.slice(1);
      selectEmitters([name]); // unknown name: the error lists the known ones
      if (x.startsWith('+')) names.add(name);
      else {
        names.delete(name);
        removed.add(name);
      }
    }
    const chosen = selectEmitters([...names]);
    for (const e of chosen) {
      if (!removed.has(e.name)) continue;
      const needs = chosen.filter((c) => names.has(c.name) && requiresOf(c.name).has(e.name)).map((c) => c.name);
      usage(
        `generators: cannot leave out ${e.name}: ${needs.join(', ')} ${needs.length === 1 ? 'needs' : 'need'} it (leave ${needs.length === 1 ? 'that' : 'those'} out too: ${needs.map((n) => `-${n}`).join(',')})`,
      );
    }
    return chosen;
  } catch (e) {
    if (e instanceof CliError) throw e;
    usage((e as Error).message);
  }
}

/** Every generator `name` pulls in, directly or not. */
function requiresOf(name: string): Set<string> {
  const byName = new Map(EMITTERS.map((e) => [e.name, e]));
  const seen = new Set<string>();
  const walk = (n: string): void => {
    for (const r of byName.get(n)?.requires ?? []) {
      if (seen.has(r)) continue;
      seen.add(r);
      walk(r);
    }
  };
  walk(name);
  return seen;
}

/** True when `emitters` include every default generator: such a run may also remove stale files no generator's layout claims. */
export function isFullRun(emitters: readonly EmitterEntry[]): boolean {
  const names = new Set(emitters.map((e) => e.name));
  return DEFAULT_EMITTERS.every((e) => names.has(e.name));
}

/** Which stale generated files a run of `target` may remove (generate/ownership.ts). */
export function removableStale(target: ResolvedTarget): (path: string) => boolean {
  return staleFilter(
    target.emitters.map((e) => e.name),
    isFullRun(target.emitters),
  );
}

function splitGenerators(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** Refuses two targets whose out folders are the same or nested (stale removal would fight). */
function checkOutsDisjoint(targets: readonly ResolvedTarget[]): void {
  for (let i = 0; i < targets.length; i++) {
    for (let j = i + 1; j < targets.length; j++) {
      const a = targets[i].out;
      const b = targets[j].out;
      if (a === undefined || b === undefined) continue;
      const ab = relative(a, b);
      const ba = relative(b, a);
      if (ab === '' || (!ab.startsWith('..') && !isAbsolute(ab)) || (!ba.startsWith('..') && !isAbsolute(ba))) {
        usage(
          `targets ${JSON.stringify(targets[i].name)} and ${JSON.stringify(targets[j].name)} write to the same or nested folders; give each its own out`,
        );
      }
    }
  }
}

/**
 * Resolves the targets of a run. One rule (README "Usage"): the config is the file `--config`
 * names, else the first crdgen.config.* (or package.json "crdgen") found walking up from the
 * current folder. Without inputs every config target runs. Inputs on the command line write to
 * `--out` (default: the out of the config's only target): when a config target writes to that
 * folder, that target runs with them added to its inputs — its settings apply (flags override
 * them), and the folder holds everything the config generates, so nothing it generates is
 * removed as stale; elsewhere only the command line applies (a folder nested in or around a
 * target's is refused). Paths of a config target's run are shown relative to the config.
 * `needOut`: the command writes or compares (generate, verify), so `out` is required.
 */
export async function resolveTargets(
  inputs: readonly string[],
  flags: GenerateFlags,
  given: FlagGiven,
  io: CliIo,
  needOut: boolean,
): Promise<Resolution> {
  const configFile = flags.config !== undefined ? resolve(io.cwd, flags.config) : findConfigFile(io.cwd);
  let cfgTargets: ConfigTarget[] | undefined;
  let cfgDir = io.cwd;
  if (configFile !== undefined) {
    const { loadConfig } = await import('../config/load.js'); // ajv and yaml: only when there is a config
    const loaded = loadConfig(configFile, displayPath(io.cwd, configFile), commandOf(io));
    if (!loaded.config) return { targets: [], diagnostics: loaded.diagnostics, configFile, notes: [] };
    cfgTargets = loaded.config.targets;
    cfgDir = loaded.config.dir;
  }
  if (inputs.length === 0 && cfgTargets === undefined) {
    usage(
      `no inputs: give CRD files (or annotated .ts files) and --out, or write a crdgen.config.yaml (${commandOf(io)} init)`,
    );
  }
  const fromCli = inputs.length > 0;
  const cfgOut = (c: ConfigTarget): string => resolve(cfgDir, c.out);
  let list: Array<ConfigTarget | undefined>;
  const notes: string[] = [];
  if (!fromCli) list = cfgTargets!;
  else if (cfgTargets === undefined) list = [undefined];
  else {
    // inputs on the command line: the config target writing to --out (or the only one) runs, with them added
    const shownConfig = displayPath(io.cwd, configFile!);
    const runOut = given('out') ? resolve(io.cwd, flags.out!) : undefined;
    if (runOut === undefined && cfgTargets.length > 1 && needOut)
      usage(
        `inputs on the command line need --out: ${shownConfig} has ${cfgTargets.length} targets, and the one writing to --out runs with them`,
      );
    const match =
      runOut === undefined
        ? cfgTargets.length === 1
          ? cfgTargets[0]
          : undefined
        : cfgTargets.find((c) => cfgOut(c) === runOut);
    const nested = runOut !== undefined && !match ? cfgTargets.find((c) => overlaps(cfgOut(c), runOut)) : undefined;
    if (nested)
      usage(
        `--out ${displayPath(io.cwd, runOut!)} and ${displayPath(io.cwd, cfgOut(nested))}, where ${shownConfig} writes, are nested: each run would remove the other's files as stale; use --out ${displayPath(io.cwd, cfgOut(nested))} (its target runs, with these inputs added) or a folder outside it`,
      );
    list = [match];
    notes.push(
      match
        ? `${shownConfig}: its target for ${displayPath(io.cwd, cfgOut(match))} runs, with the inputs named on the command line added to its own`
        : runOut === undefined
          ? `${shownConfig}: it has ${cfgTargets.length} targets and no --out names one, so only the command line applies`
          : `${shownConfig}: none of its targets writes to ${displayPath(io.cwd, runOut)}, so only the command line applies`,
    );
  }
  if (given('out') && list.length > 1)
    usage(`--out cannot apply to ${list.length} config targets; set out per target in the config`);
  const targets: ResolvedTarget[] = list.map((cfg) => {
    const cfgPath = (p: string | undefined) => (p === undefined ? undefined : resolve(cfgDir, p));
    const flagPath = (p: string | undefined) => (p === undefined ? undefined : resolve(io.cwd, p));
    const out = given('out') ? flagPath(flags.out) : cfgPath(cfg?.out);
    if (needOut && out === undefined)
      usage("required option '-o, --out <dir>' not specified (or set out in crdgen.config.yaml)");
    const tsconfig = given('tsconfig') ? flagPath(flags.tsconfig) : cfgPath(cfg?.tsconfig);
    const headerFile = given('headerFile') ? flagPath(flags.headerFile) : cfgPath(cfg?.headerFile);
    const t: ResolvedTarget = {
      name: cfg ? cfg.name : out !== undefined ? displayPath(io.cwd, out) : inputs.join(' '),
      cwd: cfg ? cfgDir : io.cwd,
      // a config target's inputs, and those named on the command line (made relative to the config's folder)
      inputs: cfg
        ? [...cfg.inputs, ...inputs.map((i) => (i === '-' ? i : relativeTo(cfgDir, resolve(io.cwd, i))))]
        : [...inputs],
      emitters: resolveGenerators(
        given('generators') && flags.generators !== undefined ? splitGenerators(flags.generators) : undefined,
        cfg?.generators,
      ),
      client: clientOptions(cfg, flags),
      controllers: given('controller') ? [...(flags.controller ?? [])] : [...(cfg?.controllers ?? [])],
      webhooks: given('webhooks') ? flags.webhooks === true : (cfg?.webhooks ?? false),
      sharding: cfg?.sharding ?? false,
      owns: given('owns')
        ? (flags.owns ?? [])
            .flatMap((o) => o.split(','))
            .map((o) => o.trim())
            .filter((o) => o !== '')
        : [...(cfg?.owns ?? [])],
      runtimeImport: (given('runtimeImport') ? flags.runtimeImport : cfg?.runtimeImport) ?? DEFAULT_RUNTIME_IMPORT,
      clean: given('clean') ? flags.clean !== false : (cfg?.clean ?? true),
      format: given('format') ? flags.format === true : (cfg?.format ?? false),
    };
    if (t.webhooks) {
      if (t.controllers.length === 0)
        usage(
          `${given('webhooks') ? '--webhooks' : 'webhooks: true'} needs the operators to serve them: name their kinds with --controller <Kind> (or controllers: in the config)`,
        );
      // an operator with webhooks: main.ts imports webhooks.ts, webhooks.ts the operator's kind; the two generators run together
      const names = t.emitters.map((e) => e.name);
      if (names.includes('controller') !== names.includes('webhooks'))
        t.emitters = selectEmitters([...names, 'controller', 'webhooks']);
    }
    if (t.sharding && t.controllers.length === 0)
      usage(
        'sharding: true needs operators to shard: name their kinds with controllers: in the config (or --controller <Kind>)',
      );
    const starter = given('starter') ? flags.starter : cfg?.starter;
    if (starter !== undefined) t.starter = starter;
    if (cfg?.image?.base !== undefined) t.imageBase = cfg.image.base;
    if (out !== undefined) t.out = out;
    if (tsconfig !== undefined) t.tsconfig = tsconfig;
    if (headerFile !== undefined) t.headerFile = headerFile;
    if (cfg && !given('controller')) t.controllersFrom = configFile;
    return t;
  });
  checkOutsDisjoint(targets);
  return { targets, diagnostics: [], notes, ...(configFile !== undefined ? { configFile } : {}) };
}

/** `abs` relative to `dir`, POSIX separators (`.` for `dir` itself). */
function relativeTo(dir: string, abs: string): string {
  const r = relative(dir, abs);
  return r === '' ? '.' : isAbsolute(r) ? r : r.split(sep).join('/');
}

/** `a` and `b` are the same folder, or one is inside the other. */
function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string): boolean => {
    const r = relative(x, y);
    return r === '' || (!r.startsWith('..') && !isAbsolute(r));
  };
  return inside(a, b) || inside(b, a);
}
