// The emitter registry: every generator, in a fixed order. `runEmitters` runs
// them, checks each output path and refuses two emitters writing one path.
// To add a generator: write `src/generate/<name>.ts` exporting an `Emitter`,
// append its facts to GENERATORS (generators.ts; order = output order) and
// its emitter to EMIT here.

import type { Model } from '../model/types.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { GENERATORS, isSafeOutputPath, type GeneratorInfo, type InputKind } from './generators.js';
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
import { webhooks } from './webhooks.js';

export { isSafeOutputPath } from './generators.js';

/** A named generator: its facts (generators.ts) and its emitter. */
export interface EmitterEntry extends GeneratorInfo {
  emit: Emitter;
}

const EMIT: Readonly<Record<string, Emitter>> = {
  types,
  deepcopy,
  register,
  validators,
  clientset,
  fake,
  listers,
  informers,
  applyconfig,
  controller,
  webhooks,
  crd,
};

/** All generators in their fixed run order (the order of {@link GENERATORS}). */
export const EMITTERS: readonly EmitterEntry[] = GENERATORS.map((g) => {
  const emit = EMIT[g.name];
  if (!emit) throw new Error(`generator ${g.name} has no emitter`);
  return { ...g, emit };
});

/** The generators run when none are selected: all but the opt-in ones. */
export const DEFAULT_EMITTERS: readonly EmitterEntry[] = EMITTERS.filter((e) => !e.optIn);

/**
 * The generators to run for inputs of `kind` when `selected` are chosen: `selected`, plus the
 * opt-in generators that are default for that input (`crd` for TypeScript) when `selected`
 * holds every default — no selection, or one that only adds to the defaults. In registry order.
 */
export function emittersForInput(selected: readonly EmitterEntry[], kind: InputKind): readonly EmitterEntry[] {
  if (!DEFAULT_EMITTERS.every((e) => selected.includes(e))) return selected;
  const extra = EMITTERS.filter((e) => e.defaultFor?.includes(kind) && !selected.includes(e));
  if (extra.length === 0) return selected;
  return EMITTERS.filter((e) => selected.includes(e) || extra.includes(e));
}

/** Thrown when an emitter produces a bad path or two emitters write the same path (a bug, not bad input). */
export class EmitterConflictError extends Error {
  override name = 'EmitterConflictError';
}

/**
 * Runs `entries` (default: {@link DEFAULT_EMITTERS}, all but opt-in) in order over the model and
 * returns every file, in emitter order then each emitter's own order. Throws
 * {@link EmitterConflictError} if a path is unsafe or written twice.
 */
export function runEmitters(
  model: Model,
  ctx: EmitContext,
  entries: readonly EmitterEntry[] = DEFAULT_EMITTERS,
): GeneratedFile[] {
  const owner = new Map<string, string>();
  const out: GeneratedFile[] = [];
  for (const e of entries) {
    for (const f of e.emit(model, ctx)) {
      if (!isSafeOutputPath(f.path))
        throw new EmitterConflictError(`emitter ${e.name} produced an unsafe path ${JSON.stringify(f.path)}`);
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
  if (bad.length > 0)
    throw new Error(`unknown generator(s) ${bad.join(', ')}; known: ${[...byName.keys()].join(', ')}`);
  const chosen = new Set<string>();
  const add = (n: string): void => {
    if (chosen.has(n)) return;
    chosen.add(n);
    for (const r of byName.get(n)?.requires ?? []) add(r);
  };
  names.forEach(add);
  return EMITTERS.filter((e) => chosen.has(e.name));
}
