// Options of the client generators (clientset, fake, listers, informers, applyconfig):
// client-gen's +genclient markers for CRD input, and plural exceptions. They live on
// the EmitContext (`ctx.client`) so the CLI and a config file fill the same object.
import { ALL_VERBS as CLIENT_VERBS, type Group, type Kind, type Model, type Verb } from '../model/types.js';
import { contradictoryVerb, narrowVerbs } from '../model/verbs.js';

/** client-gen markers for one kind (`+genclient:onlyVerbs=…` and friends). */
export interface KindClientOptions {
  /** `+genclient:onlyVerbs=…`: only these verbs (plus the readonly ones with `readonly`). */
  onlyVerbs?: Verb[];
  /** `+genclient:skipVerbs=…`: every verb but these. */
  skipVerbs?: Verb[];
  /** `+genclient:readonly`: get, list, watch. */
  readonly?: boolean;
  /** `+genclient:noStatus`: no updateStatus/applyStatus. */
  noStatus?: boolean;
}

/** What the client generators accept besides the model. */
export interface ClientGenOptions {
  /** Per kind: the kind name (`DatabaseManager`) or group-qualified (`coolops.cn/DatabaseManager`). */
  kinds?: Readonly<Record<string, KindClientOptions>>;
  /** Plural of a kind's name in generated identifiers (code-generator's --plural-exceptions `Kind:Plural`). */
  pluralExceptions?: Readonly<Record<string, string>>;
}

/** A client option names a kind or verb that does not exist (a usage error, exit 2). */
export class ClientOptionsError extends Error {
  override readonly name = 'ClientOptionsError';
}

function isVerb(v: string): v is Verb {
  return (CLIENT_VERBS as readonly string[]).includes(v);
}

/**
 * Problems with `options` against `model`: unknown kinds (neither `Kind` nor
 * `group/Kind` of any kind in the model), unknown verbs, a verb both only- and
 * skipped. `[]` when fine.
 */
export function clientOptionsErrors(model: Model, options: ClientGenOptions | undefined): string[] {
  if (!options) return [];
  const errs: string[] = [];
  const names = new Set<string>();
  for (const g of model.groups)
    for (const v of g.versions)
      for (const k of v.kinds) {
        names.add(k.kind);
        names.add(`${g.name}/${k.kind}`);
      }
  const known =
    [...names]
      .filter((n) => !n.includes('/'))
      .sort()
      .join(', ') || 'none';
  for (const [key, o] of Object.entries(options.kinds ?? {})) {
    if (!names.has(key))
      errs.push(`client options name kind ${JSON.stringify(key)}, which is not in the input (kinds: ${known})`);
    for (const v of [...(o.onlyVerbs ?? []), ...(o.skipVerbs ?? [])]) {
      if (!isVerb(v))
        errs.push(`client options for ${key}: unknown verb ${JSON.stringify(v)} (verbs: ${CLIENT_VERBS.join(', ')})`);
    }
    const both = contradictoryVerb(o);
    if (both !== undefined)
      errs.push(`client options for ${key}: verb "${both}" is both allowed (onlyVerbs/readonly) and skipped`);
  }
  for (const key of Object.keys(options.pluralExceptions ?? {})) {
    if (!names.has(key))
      errs.push(`plural exception names kind ${JSON.stringify(key)}, which is not in the input (kinds: ${known})`);
  }
  return errs;
}

/**
 * The verbs the generated client of `kind` offers: the model's verbs (markers of TS
 * input; all verbs, status ones only with the status subresource, for CRD input)
 * narrowed by the options, with client-gen's rules (readonly = get/list/watch;
 * onlyVerbs adds to readonly; skipVerbs removes; noStatus removes the status verbs).
 */
export function clientVerbs(group: Group, kind: Kind, options: ClientGenOptions | undefined): Verb[] {
  const o = options?.kinds?.[`${group.name}/${kind.kind}`] ?? options?.kinds?.[kind.kind];
  return narrowVerbs(kind.verbs, o ?? {}, kind.subresources.status);
}

/** True when `kind` has a scale subresource and its client may write (getScale/updateScale). */
export function hasScaleVerbs(kind: Kind, verbs: readonly Verb[]): boolean {
  return kind.subresources.scale !== undefined && verbs.includes('get') && verbs.includes('update');
}

function splitList(s: string, what: string): string[] {
  const items = s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (items.length === 0) throw new ClientOptionsError(`${what}: empty list`);
  return items;
}

function kindAndList(spec: string, flag: string): [string, string[]] {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new ClientOptionsError(`${flag} ${JSON.stringify(spec)}: expected <Kind>=<verb>,<verb>…`);
  const verbs = splitList(spec.slice(eq + 1), `${flag} ${spec}`);
  for (const v of verbs)
    if (!isVerb(v))
      throw new ClientOptionsError(
        `${flag} ${JSON.stringify(spec)}: unknown verb ${JSON.stringify(v)} (verbs: ${CLIENT_VERBS.join(', ')})`,
      );
  return [spec.slice(0, eq), verbs];
}

/** The command-line form of the options (each flag repeatable). */
export interface ClientOptionFlags {
  /** `--verbs Kind=get,list,watch` (onlyVerbs). */
  verbs?: string[];
  /** `--skip-verbs Kind=delete,deleteCollection`. */
  skipVerbs?: string[];
  /** `--readonly Kind`. */
  readonly?: string[];
  /** `--no-status Kind`. */
  noStatus?: string[];
  /** `--plural-exceptions Kind:Plural,Kind2:Plural2` (code-generator's format). */
  pluralExceptions?: string[];
}

/** Parses the command-line flags into {@link ClientGenOptions}; malformed values throw {@link ClientOptionsError}. */
export function parseClientOptionFlags(flags: ClientOptionFlags): ClientGenOptions {
  const kinds: Record<string, KindClientOptions> = {};
  const at = (k: string): KindClientOptions => (kinds[k] ??= {});
  for (const spec of flags.verbs ?? []) {
    const [k, vs] = kindAndList(spec, '--verbs');
    at(k).onlyVerbs = [...(at(k).onlyVerbs ?? []), ...(vs as Verb[])];
  }
  for (const spec of flags.skipVerbs ?? []) {
    const [k, vs] = kindAndList(spec, '--skip-verbs');
    at(k).skipVerbs = [...(at(k).skipVerbs ?? []), ...(vs as Verb[])];
  }
  for (const k of flags.readonly ?? []) at(k.trim()).readonly = true;
  for (const k of flags.noStatus ?? []) at(k.trim()).noStatus = true;
  const pluralExceptions: Record<string, string> = {};
  for (const spec of flags.pluralExceptions ?? []) {
    for (const pair of splitList(spec, '--plural-exceptions')) {
      const m = /^([A-Za-z][A-Za-z0-9]*):([A-Za-z][A-Za-z0-9]*)$/.exec(pair);
      if (!m) throw new ClientOptionsError(`--plural-exceptions ${JSON.stringify(pair)}: expected <Kind>:<Plural>`);
      pluralExceptions[m[1]] = m[2]!;
    }
  }
  const out: ClientGenOptions = {};
  if (Object.keys(kinds).length > 0) out.kinds = kinds;
  if (Object.keys(pluralExceptions).length > 0) out.pluralExceptions = pluralExceptions;
  return out;
}
