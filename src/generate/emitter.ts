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
   * Kinds the controllers own (`--owns apps/v1/Deployment,v1/Service`): `group/version/Kind`,
   * `version/Kind` for the core group; built-ins of crdgen/runtime or kinds of the inputs.
   */
  owns?: string[];
  /**
   * `--out` as a POSIX path relative to the project root (the folder generate runs in), for what
   * names paths of the user's project (the operator's Dockerfile); unset: docs/operator.md's
   * `src/generated`.
   */
  outDir?: string;
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
    ...(partial.owns && partial.owns.length > 0 ? { owns: [...partial.owns] } : {}),
    ...(partial.outDir !== undefined ? { outDir: partial.outDir } : {}),
  };
}
