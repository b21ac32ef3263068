// The emitter registry: every generator, in a fixed order. `runEmitters` runs
// them, checks each output path and refuses two emitters writing one path.
// To add a generator: write `src/generate/<name>.ts` exporting an `Emitter`,
// import it here and append one entry to EMITTERS (order = output order).

import type { Model } from '../model/types.js';
import { isSafePathSegment } from '../model/naming.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { types } from './types.js';
import { deepcopy } from './deepcopy.js';
import { register } from './register.js';
import { validators } from './validators.js';
import { crd } from './crd.js';
import { clientset } from './clientset.js';
import { fake } from './fake.js';
import { listers } from './listers.js';
import { informers } from './informers.js';
import { applyconfig } from './applyconfig.js';
import { controller } from './controller.js';

/** A named generator. `name` is what `--generators` style selections use. */
export interface EmitterEntry {
  name: string;
  /** One line for `--help` listings. */
  description: string;
  emit: Emitter;
  /** Not run by default; only when selected by name (`--generators …,crd`). */
  optIn?: boolean;
  /** Generators whose files this one's output imports; selecting it selects them too. */
  requires?: readonly string[];
}

/** All generators in their fixed run order. */
export const EMITTERS: readonly EmitterEntry[] = [
  { name: 'types', description: 'typed interfaces per group/version (apis/<group>/<version>/types.ts)', emit: types },
  { name: 'deepcopy', description: 'lossless deepCopy<Type> functions (apis/<group>/<version>/deepcopy.ts)', emit: deepcopy, requires: ['types'] },
  { name: 'register', description: 'group/version/kind constants and type guards (apis/<group>/<version>/register.ts)', emit: register, requires: ['types'] },
  { name: 'validators', description: 'validate<Kind>/default<Kind> from the embedded schema, as the apiserver checks (apis/<group>/<version>/validation.ts)', emit: validators, requires: ['types'] },
  { name: 'clientset', description: 'typed clientset: Clientset → coolopsV1alpha1() → databaseManagers(ns) (clientset/)', emit: clientset, requires: ['types', 'register', 'validators'] },
  { name: 'fake', description: 'fake clientset over an in-memory tracker, with actions and reactors (clientset/fake/)', emit: fake, requires: ['clientset'] },
  { name: 'listers', description: 'listers over informer caches (listers/<group>/<version>/)', emit: listers, requires: ['types'] },
  { name: 'informers', description: 'SharedInformerFactory and typed informers (informers/)', emit: informers, requires: ['clientset', 'listers', 'register'] },
  { name: 'applyconfig', description: 'server-side apply configurations per kind (applyconfigurations/<group>/<version>/)', emit: applyconfig, requires: ['types'] },
  { name: 'controller', description: 'operator for the kinds named by --controller: reconcile loop, main, manifests (controllers/<kind>/)', emit: controller, requires: ['clientset', 'informers', 'listers', 'deepcopy', 'register'] },
  { name: 'crd', description: 'CustomResourceDefinition YAML per kind (config/crd/<plural>.<group>.yaml)', emit: crd, optIn: true },
];

/** The generators run when none are selected: all but the opt-in ones. */
export const DEFAULT_EMITTERS: readonly EmitterEntry[] = EMITTERS.filter((e) => !e.optIn);

/** Thrown when an emitter produces a bad path or two emitters write the same path (a bug, not bad input). */
export class EmitterConflictError extends Error {
  override name = 'EmitterConflictError';
}

/**
 * True for a clean relative POSIX output path: segments all pass
 * {@link isSafePathSegment}, no leading `/`, no empty segments.
 */
export function isSafeOutputPath(p: string): boolean {
  if (p.length === 0 || p.startsWith('/')) return false;
  return p.split('/').every(isSafePathSegment);
}

/**
 * Runs `entries` (default: {@link DEFAULT_EMITTERS}, all but opt-in) in order over the model and
 * returns every file, in emitter order then each emitter's own order. Throws
 * {@link EmitterConflictError} if a path is unsafe or written twice.
 */
export function runEmitters(model: Model, ctx: EmitContext, entries: readonly EmitterEntry[] = DEFAULT_EMITTERS): GeneratedFile[] {
  const owner = new Map<string, string>();
  const out: GeneratedFile[] = [];
  for (const e of entries) {
    for (const f of e.emit(model, ctx)) {
      if (!isSafeOutputPath(f.path)) throw new EmitterConflictError(`emitter ${e.name} produced an unsafe path ${JSON.stringify(f.path)}`);
      const prev = owner.get(f.path);
      if (prev !== undefined) throw new EmitterConflictError(`emitters ${prev} and ${e.name} both write ${f.path}`);
      owner.set(f.path, e.name);
      out.push(f);
    }
  }
  return out;
}

/**
 * Selects registry entries by name, in registry order, together with every generator they
 * require (so `--generators clientset` still yields a tree that compiles); unknown names throw
 * with the valid list.
 */
export function selectEmitters(names: readonly string[]): EmitterEntry[] {
  const byName = new Map(EMITTERS.map((e) => [e.name, e]));
  const bad = names.filter((n) => !byName.has(n));
  if (bad.length > 0) throw new Error(`unknown generator(s) ${bad.join(', ')}; known: ${[...byName.keys()].join(', ')}`);
  const chosen = new Set<string>();
  const add = (n: string): void => {
    if (chosen.has(n)) return;
    chosen.add(n);
    for (const r of byName.get(n)?.requires ?? []) add(r);
  };
  names.forEach(add);
  return EMITTERS.filter((e) => chosen.has(e.name));
}
