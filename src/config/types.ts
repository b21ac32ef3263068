// The configuration file's shape (crdgen.config.yaml / .yml / .json, or "crdgen"
// in package.json), as schema/crdgen.config.schema.json describes it.

import type { Verb } from '../model/types.js';

/** Client verbs of one kind, like client-gen's `+genclient` markers. */
export interface KindConfig {
  /** `+genclient:onlyVerbs`. */
  verbs?: Verb[];
  /** `+genclient:skipVerbs`. */
  skipVerbs?: Verb[];
  /** `+genclient:readonly`. */
  readonly?: boolean;
  /** `+genclient:noStatus`. */
  noStatus?: boolean;
}

/** The operators' image: its base, `node22-alpine` (default), `distroless` or an image reference. */
export interface ImageConfig {
  base?: string;
}

/** Settings of one output target; paths are relative to the config file's folder. */
export interface TargetSettings {
  inputs?: string | string[];
  out?: string;
  generators?: string[];
  controllers?: string[];
  /** The operators of `controllers` serve admission and conversion webhooks (`--webhooks`). */
  webhooks?: boolean;
  /** The operators of `controllers` run sharded: replicas with `--sharded` instead of `--leader-elect`. */
  sharding?: boolean;
  /** Kinds the controllers own: `group/version/Kind` (`version/Kind` for the core group). */
  owns?: string[];
  /** The starter that writes the controllers' reconcile.ts (`--starter`): a folder of starters/, or `generic`. */
  starter?: string;
  /** The operators' image (controllers/<kind>/Dockerfile). */
  image?: ImageConfig;
  pluralExceptions?: Record<string, string>;
  kinds?: Record<string, KindConfig>;
  headerFile?: string;
  runtimeImport?: string;
  clean?: boolean;
  tsconfig?: string;
  format?: boolean;
}

/** The file as written: shared settings at the top, optionally several targets. */
export interface ConfigFile extends TargetSettings {
  $schema?: string;
  targets?: Array<TargetSettings & { name?: string }>;
}

/** One target after merging the top-level settings into it; `inputs` and `out` are present. */
export interface ConfigTarget extends Omit<TargetSettings, 'inputs' | 'out'> {
  /** Name for messages: the target's `name`, else its `out`. */
  name: string;
  inputs: string[];
  out: string;
}

/** A loaded, validated config. */
export interface LoadedConfig {
  /** Absolute path of the file it came from. */
  file: string;
  /** Folder every relative path in it resolves against. */
  dir: string;
  targets: ConfigTarget[];
}
