// Label selectors (k8s.io/apimachinery/pkg/labels): a selector is a conjunction of
// requirements on an object's labels. Shared by listers, informers and list calls;
// `toString()` gives the canonical text the apiserver accepts in `labelSelector`.

/** Operators of a requirement (the selector grammar's `=`, `==`, `!=`, `in`, `notin`, exists, `!`, `>`, `<`). */
export type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** Labels as found in `metadata.labels`. */
export type Labels = Readonly<Record<string, string>>;

/** Thrown for a malformed selector or an invalid requirement; the message says what and where. */
export class SelectorError extends Error {
  override readonly name = 'SelectorError';
  /**
   * The error as apimachinery's `labels.Parse` words it: what kube-apiserver answers in its 400
   * (and client-go returns), e.g. `unable to parse requirement: found '', expected: ',' or ')'`.
   * The message itself says where, for people.
   */
  readonly apiserverMessage: string;
  constructor(message: string, apiserverMessage?: string) {
    super(message);
    this.apiserverMessage = apiserverMessage ?? message;
  }
}

const QUALIFIED_NAME_MAX = 63;
const KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const NAME_RE = new RegExp(`^${KEY_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^(${KEY_FMT})?$`);
const INTEGER_RE = /^[-+]?[0-9]+$/;
const bytes = (s: string): number => new TextEncoder().encode(s).length;

/** apimachinery's content.RegexError. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** content.IsDNS1123Subdomain (apimachinery 1.37), word for word; `[]` when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 253) errs.push('must be no more than 253 bytes');
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/**
 * Problems with a label key (content.IsLabelKey of apimachinery 1.37, word for word: an optional
 * DNS-1123 subdomain prefix and `/`, then a name of 1..63 alphanumerics, `-`, `_`, `.`,
 * starting and ending alphanumeric); `[]` when valid.
 */
export function labelKeyErrors(key: string): string[] {
  const parts = key.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(KEY_MSG, KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (bytes(name) > QUALIFIED_NAME_MAX) errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX} bytes`);
  if (!NAME_RE.test(name)) errs.push(`name part ${regexError(KEY_MSG, KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Problems with a label value (content.IsLabelValue, word for word: empty, or ≤ 63 alphanumerics, `-`, `_`, `.` starting and ending alphanumeric); `[]` when valid. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > QUALIFIED_NAME_MAX) errs.push(`must be no more than ${QUALIFIED_NAME_MAX} bytes`);
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        `(${KEY_FMT})?`,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/**
 * One requirement: `key op values`. Immutable once built; `values` is sorted and
 * de-duplicated. Build with {@link newRequirement}, which validates like the apiserver.
 */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  /** Sorted, de-duplicated; empty for exists/`!`; one element for `=`, `==`, `!=`, gt, lt. */
  readonly values: readonly string[];
}

/**
 * Builds a validated requirement (apimachinery's `NewRequirement`): the key must be a
 * qualified name; `in`/`notin` need at least one value; `=`, `==`, `!=` exactly one;
 * exists and `!` none; gt/lt exactly one integer. Values must be valid label values.
 * Throws {@link SelectorError}.
 */
export function newRequirement(key: string, operator: Operator, values: readonly string[] = []): Requirement {
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) throw new SelectorError(`invalid label key ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty (key ${JSON.stringify(key)})`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        throw new SelectorError(`exact-match compatibility requires one single value (key ${JSON.stringify(key)})`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        throw new SelectorError(`values set must be empty for exists and does not exist (key ${JSON.stringify(key)})`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        throw new SelectorError(`for 'Gt', 'Lt' operators, exactly one value is required (key ${JSON.stringify(key)})`);
      if (!INTEGER_RE.test(values[0]))
        throw new SelectorError(
          `for 'Gt', 'Lt' operators, the value must be an integer (key ${JSON.stringify(key)}, value ${JSON.stringify(values[0])})`,
        );
      break;
    default:
      throw new SelectorError(`operator ${JSON.stringify(operator)} is not recognized`);
  }
  for (const v of values) {
    const errs = labelValueErrors(v);
    if (errs.length > 0)
      throw new SelectorError(
        `invalid label value ${JSON.stringify(v)} for key ${JSON.stringify(key)}: ${errs.join('; ')}`,
      );
  }
  const sorted = [...new Set(values)].sort(compare);
  return Object.freeze({ key, operator, values: Object.freeze(sorted) });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `labels` satisfy requirement `r` (absent labels satisfy `!=`, `notin` and `!`). */
export function requirementMatches(r: Requirement, labels: Labels | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined || !INTEGER_RE.test(value)) return false;
      const have = BigInt(value);
      const want = BigInt(r.values[0]);
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

/** Canonical text of one requirement, as apimachinery prints it. */
export function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case '=':
    case '==':
    case '!=':
      return `${r.key}${r.operator}${r.values[0]}`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
  }
}

/**
 * A label selector: the AND of its requirements. Immutable; requirements are kept
 * sorted by key (stable), so `toString()` is canonical.
 */
export class Selector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly Requirement[];

  /** Use {@link parseSelector}, {@link selectorFromSet}, {@link everything} or {@link nothing}. */
  constructor(
    requirements: readonly Requirement[],
    private readonly matchesNothing = false,
  ) {
    this.requirements = Object.freeze([...requirements].sort((a, b) => compare(a.key, b.key)));
  }

  /** True when every requirement holds for `labels` (a missing label map counts as empty). */
  matches(labels: Labels | undefined): boolean {
    if (this.matchesNothing) return false;
    for (const r of this.requirements) if (!requirementMatches(r, labels)) return false;
    return true;
  }

  /** True for the selector that matches everything (no requirements). */
  empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  /** A new selector with `requirements` added. */
  add(...requirements: Requirement[]): Selector {
    return new Selector([...this.requirements, ...requirements], this.matchesNothing);
  }

  /** Canonical selector text (`''` for everything), what `labelSelector=` takes. */
  toString(): string {
    if (this.matchesNothing) return '';
    return this.requirements.map(requirementString).join(',');
  }
}

const EVERYTHING = new Selector([]);
const NOTHING = new Selector([], true);

/** The selector matching every object (`''`). */
export function everything(): Selector {
  return EVERYTHING;
}

/** The selector matching no object (only usable locally; it has no text form). */
export function nothing(): Selector {
  return NOTHING;
}

/** An equality selector from a label map (`{app: 'db'}` → `app=db`); validates keys and values. */
export function selectorFromSet(set: Labels | undefined): Selector {
  if (!set) return EVERYTHING;
  return new Selector(Object.keys(set).map((k) => newRequirement(k, '=', [set[k]])));
}
