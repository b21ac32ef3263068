// What `--controller`, `--owns` and `--starter` name, resolved against the model once for the
// option checks (src/generate/check.ts) and the emitters that write operators (controller.ts,
// webhooks.ts): the kind of each operator, the kinds it owns, and the starter that writes its
// reconcile.ts (starters.ts), if any.

import type { Kind, Model } from '../model/types.js';
import { isSafePathSegment, pluralName, privateName } from '../model/naming.js';
import { compareStrings } from '../model/order.js';
import type { EmitContext } from './emitter.js';
import { clientKinds, type ClientKind } from './client-kinds.js';
import { BUILTIN_OWNABLE } from './builtin-kinds.js';
import {
  GENERIC_STARTER,
  loadStarter,
  starterFields,
  starterFor,
  starterNames,
  type StarterManifest,
} from './starters.js';

/** A bad `--controller`, `--owns` or `--starter` selection; the message is for the user. */
export class ControllerOptionsError extends Error {
  override name = 'ControllerOptionsError';
}

/** True when the kind's schema declares a status. */
export function hasStatus(kind: Kind): boolean {
  return kind.schema?.type === 'object' && kind.schema.properties.some((p) => p.name === 'status');
}

/** The client kind a `--controller` entry names: `Kind` or `group/Kind`; the storage version, else the first served. */
export function resolveControllerKind(model: Model, ctx: EmitContext, selector: string): ClientKind {
  const slash = selector.lastIndexOf('/');
  const group = slash >= 0 ? selector.slice(0, slash) : undefined;
  const kind = slash >= 0 ? selector.slice(slash + 1) : selector;
  const all = clientKinds(model, ctx.client, true).flatMap((gv) => gv.kinds);
  const matches = all.filter((ck) => ck.kind.kind === kind && (group === undefined || ck.group.name === group));
  const groups = [...new Set(matches.map((ck) => ck.group.name))];
  if (groups.length === 0) {
    const known = [...new Set(all.map((ck) => ck.kind.kind))].sort(compareStrings);
    throw new ControllerOptionsError(
      `--controller ${selector}: no such kind; known kinds: ${known.join(', ') || '(none)'}`,
    );
  }
  if (groups.length > 1)
    throw new ControllerOptionsError(
      `--controller ${selector}: kind ${kind} is in several groups (${groups.join(', ')}); write <group>/${kind}`,
    );
  const chosen = matches.find((ck) => ck.kind.storage) ?? matches[0];
  const statusVerb = chosen.kind.subresources.status ? 'updateStatus' : 'update';
  const needed = ['get', 'list', 'watch', ...(hasStatus(chosen.kind) ? [statusVerb] : [])];
  const missing = needed.filter((v) => !(chosen.verbs as string[]).includes(v));
  if (missing.length > 0)
    throw new ControllerOptionsError(
      `--controller ${selector}: the controller needs the client verbs ${missing.join(', ')} of ${kind}, which the client options remove`,
    );
  return chosen;
}

/**
 * A kind an operator owns (`--owns`, or its starter's): a built-in of crdgen/runtime
 * (`apps/v1/Deployment`, `v1/Service`, …) or a kind of the inputs. Owned objects queue their
 * controller owner, are listed into the reconciler's `context.owned`, and get RBAC.
 */
export interface OwnedKind {
  /** `group/version/Kind`, `version/Kind` for the core group. */
  selector: string;
  group: string;
  version: string;
  kind: string;
  /** The resource (plural), as RBAC names it. */
  resource: string;
  namespaced: boolean;
  /** Its type and `TypedResource` descriptor: exports of the runtime, or of the generated `apis/<group>/<version>/`. */
  source: { runtime: boolean; type: string; descriptor: string };
  /** The key in `context.owned`. */
  field: string;
  /** For a kind of the inputs: its group/version's type name (`GatewayV1`), the prefix of its names where they clash. */
  prefix?: string;
  /** Who asked for it: the starter (by name), or `--owns`. */
  from: string;
  /**
   * Cached as metadata only: its starter reads no more of it, and `--owns` does not name it
   * (code of the user's may read it whole).
   */
  metadataOnly: boolean;
}

/** The starter an operator's reconcile.ts comes from, with the manifest's fields the kind has. */
export interface PickedStarter {
  manifest: StarterManifest;
  fields: Record<string, boolean>;
}

/** One operator to write: controllers/<dir>/ for `ck`. */
export interface ControllerPlan {
  /** The `--controller` entry. */
  selector: string;
  ck: ClientKind;
  /** controllers/<dir>/: the kind, lower-cased. */
  dir: string;
  owns: OwnedKind[];
  /** Undefined: the generic reconciler (the stub hooks). */
  starter?: PickedStarter;
}

/**
 * The starter of the operator of `ck`: `ctx.starter` when given (`generic`: none), else the one
 * whose manifest names the kind's group and kind, when the kind has every field it reads.
 */
function pickStarter(ctx: EmitContext, ck: ClientKind, selector: string): PickedStarter | undefined {
  const name = ctx.starter;
  if (name === GENERIC_STARTER) return undefined;
  if (name !== undefined) {
    const names = starterNames();
    if (!names.includes(name))
      throw new ControllerOptionsError(
        `--starter ${name}: no such starter; known: ${[...names, GENERIC_STARTER].join(', ')}`,
      );
    const manifest = loadStarter(name);
    const { present, missing } = starterFields(manifest, ck.kind);
    if (missing.length > 0)
      throw new ControllerOptionsError(
        `--starter ${name}: --controller ${selector} (${ck.group.name}/${ck.version.name} ${ck.kind.kind}) has not the fields the starter reads: ${missing.join(', ')}`,
      );
    return { manifest, fields: present };
  }
  const manifest = starterFor(ck.group.name, ck.kind.kind);
  if (!manifest) return undefined;
  const { present, missing } = starterFields(manifest, ck.kind);
  return missing.length === 0 ? { manifest, fields: present } : undefined;
}

/** The owned kinds of the starter and of `--owns` (or the config's `owns`) for the controller of `forKind`. */
function resolveOwnedKinds(
  model: Model,
  ctx: EmitContext,
  forKind: ClientKind,
  starter: PickedStarter | undefined,
): OwnedKind[] {
  const selectors = [
    ...(starter?.manifest.owns ?? []).map((s) => ({ raw: s, from: `the ${starter?.manifest.name} starter` })),
    ...(ctx.owns ?? []).map((s) => ({ raw: s, from: '--owns' })),
  ];
  const modelKinds = clientKinds(model, ctx.client, false).flatMap((gv) => gv.kinds);
  const out: OwnedKind[] = [];
  const seen = new Set<string>();
  const byOwns = new Set<string>();
  for (const { raw, from } of selectors) {
    const parts = raw.split('/');
    if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) {
      throw new ControllerOptionsError(
        `--owns ${raw}: want group/version/Kind (version/Kind for the core group), e.g. apps/v1/Deployment or v1/Service`,
      );
    }
    const [group, version, kind] = parts.length === 2 ? ['', parts[0], parts[1]] : [parts[0], parts[1], parts[2]];
    const selector = group === '' ? `${version}/${kind}` : `${group}/${version}/${kind}`;
    if (from === '--owns') byOwns.add(selector);
    if (seen.has(selector)) continue;
    seen.add(selector);
    const ck = modelKinds.find((k) => k.group.name === group && k.version.name === version && k.kind.kind === kind);
    let owned: OwnedKind;
    if (ck) {
      const missing = ['list', 'watch'].filter((v) => !(ck.verbs as string[]).includes(v));
      if (missing.length > 0)
        throw new ControllerOptionsError(
          `--owns ${selector}: the controller watches what it owns, which needs the client verbs ${missing.join(', ')} the client options remove`,
        );
      owned = {
        selector,
        group,
        version,
        kind,
        resource: ck.kind.plural,
        namespaced: ck.kind.scope === 'Namespaced',
        source: { runtime: false, type: ck.names.type, descriptor: `${ck.names.type}Resource` },
        field: ck.names.pluralAccessor,
        prefix: ck.names.groupVersionType,
        from,
        metadataOnly: false,
      };
    } else {
      const b = Object.prototype.hasOwnProperty.call(BUILTIN_OWNABLE, selector) ? BUILTIN_OWNABLE[selector] : undefined;
      if (!b) {
        const known = Object.keys(BUILTIN_OWNABLE).sort(compareStrings).join(', ');
        const inputs = [
          ...new Set(
            modelKinds.map((k) =>
              k.group.name === ''
                ? `${k.version.name}/${k.kind.kind}`
                : `${k.group.name}/${k.version.name}/${k.kind.kind}`,
            ),
          ),
        ].sort(compareStrings);
        throw new ControllerOptionsError(
          `--owns ${selector}: no such kind; built in: ${known}${inputs.length > 0 ? `; in the inputs: ${inputs.join(', ')}` : ''}`,
        );
      }
      owned = {
        selector,
        group,
        version,
        kind,
        resource: b.resource,
        namespaced: b.namespaced,
        source: { runtime: true, type: b.type, descriptor: b.descriptor },
        field: privateName(pluralName(kind)),
        from,
        metadataOnly: false,
      };
    }
    if (forKind.kind.scope === 'Namespaced' && !owned.namespaced) {
      throw new ControllerOptionsError(
        `--owns ${selector}: ${forKind.kind.kind} is namespaced and cannot own cluster-scoped ${kind} objects (the garbage collector ignores such an owner reference)`,
      );
    }
    if (out.some((o) => o.field === owned.field))
      throw new ControllerOptionsError(
        `--owns ${selector}: two owned kinds would both be context.owned.${owned.field}; own one of them`,
      );
    out.push(owned);
  }
  for (const o of out)
    o.metadataOnly =
      o.from !== '--owns' && !byOwns.has(o.selector) && (starter?.manifest.metadataOnly ?? []).includes(o.selector);
  return out;
}

/** The operator `--controller <selector>` asks for; throws {@link ControllerOptionsError} for a bad selection. */
export function planController(model: Model, ctx: EmitContext, selector: string): ControllerPlan {
  const ck = resolveControllerKind(model, ctx, selector);
  const dir = ck.kind.kind.toLowerCase();
  if (!isSafePathSegment(dir))
    throw new ControllerOptionsError(`--controller ${selector}: unsafe folder name ${JSON.stringify(dir)}`);
  const starter = pickStarter(ctx, ck, selector);
  const plan: ControllerPlan = { selector, ck, dir, owns: resolveOwnedKinds(model, ctx, ck, starter) };
  if (starter) plan.starter = starter;
  return plan;
}

/** Every operator of `ctx.controllers`, one per folder (the first entry naming a kind wins), in their order. */
export function controllerPlans(model: Model, ctx: EmitContext): ControllerPlan[] {
  const out: ControllerPlan[] = [];
  for (const selector of ctx.controllers ?? []) {
    const plan = planController(model, ctx, selector);
    if (!out.some((p) => p.dir === plan.dir)) out.push(plan);
  }
  return out;
}
