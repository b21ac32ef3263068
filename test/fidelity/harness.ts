// The fidelity harness: the same scenarios are sent to crdgen's in-process test server and
// to the real kube-apiserver; every response is recorded, normalised (uids, timestamps and
// resourceVersion values replaced, resourceVersion order kept) and compared field by field.
import { isDeepStrictEqual } from 'node:util';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { raw, rawWatch } from '../support/raw.js';
import type { RawOptions, RawResponse, RawWatch } from '../support/raw.js';

/** What is compared of one response. */
export interface Recorded {
  step: string;
  status: number;
  /** Status objects: reason, message, details (kind, name, group, causes). */
  reason?: string;
  message?: string;
  details?: unknown;
  /** Any other body, normalised. */
  body?: unknown;
  warnings?: string[];
}

export interface ScenarioContext {
  /** The namespace of this scenario (created before it runs). */
  ns: string;
  handle: ApiServerHandle;
  /** Sends a request and records its response under `step`. */
  req: (step: string, method: string, path: string, o?: RawOptions) => Promise<RawResponse>;
  /** Sends a request without recording it (set-up). */
  send: (method: string, path: string, o?: RawOptions) => Promise<RawResponse>;
  /** Records a value computed by the scenario (e.g. events a watch delivered). */
  note: (step: string, value: unknown) => void;
  /** Opens a watch (not recorded itself). */
  watch: (path: string, o?: RawOptions) => Promise<RawWatch>;
  /** Polls until `probe` is true (bounded), records the final response of `req`. */
  eventually: (
    step: string,
    method: string,
    path: string,
    done: (r: RawResponse) => boolean,
    timeoutMs?: number,
  ) => Promise<RawResponse>;
}

export interface Scenario {
  name: string;
  run(ctx: ScenarioContext): Promise<void>;
}

/** A resourceVersion inside a message that quotes an object's JSON (`\"resourceVersion\":\"12\"`). */
const EMBEDDED_RV = /\\"resourceVersion\\":\\"(\d+)\\"/g;

/** One scenario's normaliser: the same uid/resourceVersion gets the same placeholder everywhere. */
class Normaliser {
  private readonly uids = new Map<string, string>();
  private readonly rvs = new Set<string>();
  private ranked: Map<string, number> | undefined;

  seeRv(rv: unknown): void {
    if (typeof rv === 'string' && /^\d+$/.test(rv)) {
      this.rvs.add(rv);
      this.ranked = undefined;
    }
  }

  /** Collects resourceVersions first, so that ranks follow numeric order over the whole scenario. */
  collect(v: unknown, key = '', inListMeta = false): void {
    if (Array.isArray(v)) for (const x of v) this.collect(x, key);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const isList = Array.isArray(o.items) && typeof o.kind === 'string' && o.kind.endsWith('List');
      for (const [k, x] of Object.entries(o)) this.collect(x, k, isList && k === 'metadata');
    } else if (key === 'resourceVersion' && !inListMeta) this.seeRv(v);
    else if (typeof v === 'string') for (const m of v.matchAll(EMBEDDED_RV)) this.seeRv(m[1]);
  }

  private rank(rv: string): string {
    this.ranked ??= new Map([...this.rvs].sort((a, b) => Number(a) - Number(b)).map((x, i) => [x, i + 1]));
    const r = this.ranked.get(rv);
    return r === undefined ? '<rv:?>' : `<rv:${r}>`;
  }

  uid(u: string): string {
    let n = this.uids.get(u);
    if (!n) {
      n = `<uid:${this.uids.size + 1}>`;
      this.uids.set(u, n);
    }
    return n;
  }

  text(s: string): string {
    return s
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => this.uid(u))
      .replace(EMBEDDED_RV, (_m, rv: string) => `\\"resourceVersion\\":\\"${this.rank(rv)}\\"`)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  }

  value(v: unknown, key = '', parentIsListMeta = false, generateName?: string): unknown {
    if (Array.isArray(v)) return v.map((x) => this.value(x, key));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const isList = Array.isArray(o.items) && typeof o.kind === 'string' && o.kind.endsWith('List');
      const out: Record<string, unknown> = {};
      const gen = typeof o.generateName === 'string' ? o.generateName : undefined;
      for (const k of Object.keys(o).sort()) out[k] = this.value(o[k], k, isList && k === 'metadata', gen);
      // managedFields are ordered by write time in seconds: two writes within a second may come
      // in either order on the apiserver, so entries are compared by who wrote them
      if (Array.isArray(out.managedFields))
        out.managedFields = [...out.managedFields].sort((a, b) =>
          JSON.stringify(managerKey(a)) < JSON.stringify(managerKey(b)) ? -1 : 1,
        );
      return out;
    }
    if (typeof v !== 'string') return v;
    switch (key) {
      case 'uid':
        return this.uid(v);
      case 'resourceVersion':
        return parentIsListMeta ? '<list-rv>' : /^\d+$/.test(v) ? this.rank(v) : v;
      case 'creationTimestamp':
      case 'deletionTimestamp':
      case 'time':
      case 'lastTransitionTime':
        return '<time>';
      case 'continue':
        return v ? '<continue>' : v;
      case 'name':
        return generateName && v.startsWith(generateName) && v.length === generateName.length + 5
          ? `${generateName}<suffix>`
          : v;
      default:
        return this.text(v);
    }
  }
}

function managerKey(e: unknown): unknown[] {
  const m = (e ?? {}) as { manager?: string; operation?: string; subresource?: string };
  return [m.manager ?? '', m.operation ?? '', m.subresource ?? ''];
}

function isStatus(
  b: unknown,
): b is { kind: 'Status'; reason?: string; message?: string; details?: unknown; status?: string } {
  return (
    !!b &&
    typeof b === 'object' &&
    (b as { kind?: unknown }).kind === 'Status' &&
    (b as { apiVersion?: unknown }).apiVersion === 'v1'
  );
}

/**
 * The apiserver reports schema errors in Go map order, which changes from one request to the
 * next: causes are compared as a sorted list, and an aggregate message `… is invalid: [a, b]`
 * whose parts are exactly the causes (in any order) is rewritten in that sorted order.
 */
function unorderCauses(
  message: string | undefined,
  details: unknown,
): { message: string | undefined; details: unknown } {
  const causes = (details as { causes?: { field?: string; message?: string; reason?: string }[] } | undefined)?.causes;
  if (!causes || causes.length < 2) return { message, details };
  const key = (c: { field?: string; message?: string; reason?: string }): string =>
    `${c.field ?? ''}\u0000${c.message ?? ''}\u0000${c.reason ?? ''}`;
  const sorted = [...causes].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  let msg = message;
  const at = message?.indexOf(' is invalid: [') ?? -1;
  if (message && at >= 0 && message.endsWith(']')) {
    const parts = [...new Set(sorted.map((c) => (c.field ? `${c.field}: ${c.message}` : `${c.message}`)))];
    const inner = message.slice(at + ' is invalid: ['.length, -1);
    if (inner.length === parts.join(', ').length && parts.every((p) => inner.includes(p)))
      msg = `${message.slice(0, at)} is invalid: [${parts.join(', ')}]`;
  }
  return { message: msg, details: { ...(details as object), causes: sorted } };
}

/** A Status body as the scenarios compare it: reason, message and details, causes in sorted order. */
export function normaliseStatus(body: unknown): { reason?: string; message?: string; details?: unknown } {
  if (!isStatus(body)) return { message: JSON.stringify(body) };
  const { message, details } = unorderCauses(body.message, body.details);
  const n = new Normaliser();
  return {
    reason: body.reason,
    message: message === undefined ? undefined : n.text(message),
    details: n.value(details),
  };
}

/** Table rows: the age cell depends on the clock, not on the server. */
function normaliseTable(b: unknown): unknown {
  const t = b as { kind?: string; columnDefinitions?: { name: string }[]; rows?: { cells: unknown[] }[] };
  if (t?.kind !== 'Table' || !t.columnDefinitions || !t.rows) return b;
  const age = t.columnDefinitions.findIndex((c) => c.name === 'Age');
  if (age < 0) return b;
  return { ...t, rows: t.rows.map((r) => ({ ...r, cells: r.cells.map((c, i) => (i === age ? '<age>' : c)) })) };
}

function warningsOf(h: Record<string, string | string[] | undefined>): string[] | undefined {
  const w = h.warning;
  if (w === undefined) return undefined;
  return (Array.isArray(w) ? w : [w]).map((x) => x.replace(/^299 - "(.*)"$/, '$1'));
}

/** Runs one scenario on one backend; returns the recorded responses (normalised). */
export async function runScenario(handle: ApiServerHandle, s: Scenario, ns: string): Promise<Recorded[]> {
  const pending: { step: string; res?: RawResponse; value?: unknown }[] = [];
  const send = (method: string, path: string, o?: RawOptions): Promise<RawResponse> => raw(handle, method, path, o);
  const ctx: ScenarioContext = {
    ns,
    handle,
    send,
    req: async (step, method, path, o) => {
      // a request that gets no answer is an answer too (a hang where the apiserver answers)
      const res = await send(method, path, o).catch((e: Error): RawResponse => ({
        status: -1,
        body: `no answer: ${e.message.replace(/within \d+ ms/, 'in time')}`,
        text: '',
        headers: {},
      }));
      pending.push({ step, res });
      return res;
    },
    note: (step, value) => void pending.push({ step, value }),
    watch: (path, o) => rawWatch(handle, path, o),
    eventually: async (step, method, path, done, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      let res = await send(method, path);
      while (!done(res) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        res = await send(method, path);
      }
      pending.push({ step, res });
      return res;
    },
  };
  await s.run(ctx);
  const n = new Normaliser();
  for (const p of pending) n.collect(p.res ? p.res.body : p.value);
  return pending.map(({ step, res, value }): Recorded => {
    if (!res) return { step, status: 0, body: n.value(value) };
    const rec: Recorded = { step, status: res.status };
    const w = warningsOf(res.headers);
    if (w) rec.warnings = w.map((x) => n.text(x));
    if (isStatus(res.body)) {
      const { message, details } = unorderCauses(res.body.message, res.body.details);
      rec.reason = res.body.reason;
      rec.message = message === undefined ? undefined : n.text(message);
      rec.details = n.value(details);
    } else rec.body = n.value(normaliseTable(res.body));
    return rec;
  });
}

/** One difference between the two backends' answers to a step. */
export interface Difference {
  scenario: string;
  step: string;
  field: string;
  testenv: unknown;
  real: unknown;
}

/** Field-by-field comparison of a scenario's records (objects compared by path, so a difference names its field). */
export function compare(
  scenario: string,
  a: Recorded[],
  b: Recorded[],
): { identical: number; total: number; differences: Difference[] } {
  const differences: Difference[] = [];
  let identical = 0;
  const total = Math.max(a.length, b.length);
  for (let i = 0; i < total; i++) {
    const x = a[i];
    const y = b[i];
    if (!x || !y || x.step !== y.step) {
      differences.push({
        scenario,
        step: x?.step ?? y?.step ?? `#${i}`,
        field: '(step)',
        testenv: x?.step,
        real: y?.step,
      });
      continue;
    }
    const before = differences.length;
    diff(scenario, x.step, '', x, y, differences);
    if (differences.length === before) identical++;
  }
  return { identical, total, differences };
}

function diff(scenario: string, step: string, path: string, a: unknown, b: unknown, out: Difference[]): void {
  if (isDeepStrictEqual(a, b)) return;
  const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (obj(a) && obj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      diff(scenario, step, path ? `${path}.${k}` : k, a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => diff(scenario, step, `${path}[${i}]`, x, b[i], out));
    return;
  }
  out.push({ scenario, step, field: path || '(value)', testenv: a, real: b });
}
