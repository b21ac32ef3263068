// The emitter contract: an emitter is one pure function from the model to files.
// It never touches the file system; the writer (src/emit/writer.ts) does.

import type { Model } from '../model/types.js';
import type { ClientGenOptions } from './client-options.js';
import type { GeneratedFile } from '../emit/file.js';

/** One output file, relative to `--out` (defined on the writer's side, src/emit/file.ts). */
export type { GeneratedFile };

/** What every emitter receives besides the model. Plain data. */
export interface EmitContext {
  /**
   * Module specifier generated code imports the runtime from (`ObjectMeta`,
   * `ListMeta`, REST client, informers…). Default `'crdgen/runtime'`.
   */
  runtimeImport: string;
  /** Input files as displayed in generated headers (POSIX, sorted). */
  sources: string[];
  /** Options of the client generators (verbs per kind, plural exceptions); CLI or config fill it. */
  client?: ClientGenOptions;
  /** Kinds (`Kind` or `group/Kind`) that get a controller (`--controller`); none by default. */
  controllers?: string[];
  /**
   * The starter that writes the controllers' reconcile.ts (`--starter`, `starter:`): a folder of
   * starters/, or `generic` for the hooks to fill in. Unset: the starter whose manifest names the
   * kind's group and kind, else the generic hooks.
   */
  starter?: string;
  /** `--webhooks` (`webhooks: true`): the controllers' operators serve admission and conversion webhooks. */
  webhooks?: boolean;
  /**
   * `sharding: true`: the controllers' operators run as shards of a ring (`--sharded` in
   * config/manager/manager.yaml, several replicas; RBAC for the shard Leases and the sharder's label patches).
   */
  sharding?: boolean;
  /**
   * Kinds the controllers own (`--owns apps/v1/Deployment,v1/Service`): `group/version/Kind`,
   * `version/Kind` for the core group; built-ins of crdgen/runtime or kinds of the inputs.
   */
  owns?: string[];
  /**
   * The base of the operators' image (`image: { base }` in the config): `node22-alpine`,
   * `distroless` or an image reference; unset: `node22-alpine` (operator-image.ts).
   */
  imageBase?: string;
  /**
   * `--out` as a POSIX path relative to the project root (the folder generate runs in), for what
   * names paths of the user's project (the operator's Dockerfile); unset: docs/operator.md's
   * `src/generated`.
   */
  outDir?: string;
  /**
   * The part of the output to emit, when a run writes its output group by group (src/cli/stream/):
   * `groups` — only the files of these groups (per group, version and kind; an operator's files go
   * with its kind's group); `shared` — only the files that span groups (clientset/clientset.ts,
   * clientset/fake/clientset.ts, informers/factory.ts). Unset: every file. The model holds every
   * group of the run either way; outside `groups` its kinds may carry no schema.
   */
  part?: OutputPart;
}

/** A part of a run's output: see {@link EmitContext.part}. */
export type OutputPart = { groups: ReadonlySet<string> } | { shared: true };

/** The files of `group` are emitted in this context. */
export function emitsGroup(ctx: EmitContext, group: string): boolean {
  const part = ctx.part;
  return part === undefined || ('groups' in part && part.groups.has(group));
}

/** The files that span groups are emitted in this context. */
export function emitsShared(ctx: EmitContext): boolean {
  return ctx.part === undefined || 'shared' in ctx.part;
}

/**
 * An emitter: `(model, ctx) => GeneratedFile[]`. Pure and deterministic: the
 * same model and context give byte-identical files in the same order.
 */
export type Emitter = (model: Model, ctx: EmitContext) => GeneratedFile[];

/** The default context values; `createEmitContext({sources})` fills the rest. */
export const DEFAULT_RUNTIME_IMPORT = 'crdgen/runtime';

/** Builds an {@link EmitContext}, defaulting `runtimeImport` and sorting `sources`. */
export function createEmitContext(partial: Partial<EmitContext> = {}): EmitContext {
  return {
    runtimeImport: partial.runtimeImport ?? DEFAULT_RUNTIME_IMPORT,
    sources: [...(partial.sources ?? [])].map((s) => s.replace(/\\/g, '/')).sort(),
    ...(partial.client ? { client: partial.client } : {}),
    ...(partial.controllers && partial.controllers.length > 0 ? { controllers: [...partial.controllers] } : {}),
    ...(partial.starter !== undefined ? { starter: partial.starter } : {}),
    ...(partial.webhooks ? { webhooks: true } : {}),
    ...(partial.sharding ? { sharding: true } : {}),
    ...(partial.owns && partial.owns.length > 0 ? { owns: [...partial.owns] } : {}),
    ...(partial.imageBase !== undefined ? { imageBase: partial.imageBase } : {}),
    ...(partial.outDir !== undefined ? { outDir: partial.outDir } : {}),
    ...(partial.part !== undefined ? { part: partial.part } : {}),
  };
}
