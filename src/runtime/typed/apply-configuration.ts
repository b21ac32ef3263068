// Apply configurations (applyconfiguration-gen's role): the shape of a server-side
// apply request — the object with every field optional, all the way down, except the
// identity (apiVersion, kind, metadata.name) the apiserver needs.
import type { ObjectMeta } from '../meta/types.js';

/** Every property optional, recursively (arrays keep their element shape, made deep-partial). */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * The apply configuration of kind `T`: apiVersion, kind and metadata.name required;
 * every other field of the object optional at every depth. Fields left out are not
 * claimed by the field manager.
 */
export type ApplyConfigurationFor<T> = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & DeepPartial<Omit<ObjectMeta, 'name' | 'namespace'>>;
} & { [K in Exclude<keyof T, 'apiVersion' | 'kind' | 'metadata'>]?: DeepPartial<T[K]> };
