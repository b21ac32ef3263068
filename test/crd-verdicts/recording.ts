// The recording of kube-apiserver's verdicts on the differential suite's cases
// (recording.json beside this file): how it is read, written and made, and how one case is
// sent to a server.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { raw } from '../support/raw.js';
import { bodyHash, SEED, verdictCases, type VerdictCase } from './cases.js';

/** The request every case is: a dry-run create, unknown fields refused as kubectl asks. */
export const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All&fieldValidation=Strict';

export const RECORDING_FILE = join(fileURLToPath(new URL('.', import.meta.url)), 'recording.json');

/** A server's answer to one case: 201, or the status code and message of the refusal. */
export interface Answer {
  status: number;
  message?: string;
}

/** One recorded case: its id, the hash of its body when recorded, the answer. */
export interface RecordedCase extends Answer {
  id: string;
  input: string;
}

export interface Recording {
  apiserver: string;
  request: string;
  seed: number;
  cases: RecordedCase[];
}

/** The recording, by case id. */
export function readRecording(): { meta: Omit<Recording, 'cases'>; byId: Map<string, RecordedCase> } {
  const rec = JSON.parse(readFileSync(RECORDING_FILE, 'utf8')) as Recording;
  const { cases, ...meta } = rec;
  return { meta, byId: new Map(cases.map((c) => [c.id, c])) };
}

/** Writes the recording: one case per line, so that a re-recording's diff reads case by case. */
export function writeRecording(rec: Recording): void {
  const lines = rec.cases.map((c) => `    ${JSON.stringify(c)}`);
  const head = JSON.stringify({ apiserver: rec.apiserver, request: rec.request, seed: rec.seed }, null, 2).slice(0, -2);
  writeFileSync(RECORDING_FILE, `${head},\n  "cases": [\n${lines.join(',\n')}\n  ]\n}\n`);
}

/** Sends one case to a server (dry run) and returns its answer. */
export async function send(handle: ApiServerHandle, c: VerdictCase): Promise<Answer> {
  const r = await raw(handle, 'POST', CRDS_PATH, { body: c.body, timeoutMs: 120_000 });
  if (r.status === 201) return { status: 201 };
  const message =
    r.body && typeof r.body === 'object' && typeof r.body.message === 'string' ? (r.body.message as string) : r.text;
  return { status: r.status, message };
}

/** Runs `fn` over `items` with at most `n` at a time, results in order. */
export async function pool<T, R>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/** Records every case's answer from `handle` (kube-apiserver). */
export async function record(
  handle: ApiServerHandle & { version?: string },
  log: (s: string) => void = () => {},
): Promise<Recording> {
  const cases = verdictCases();
  let done = 0;
  const answers = await pool(cases, 4, async (c) => {
    const a = await send(handle, c);
    if (++done % 250 === 0) log(`${done}/${cases.length}`);
    return a;
  });
  return {
    apiserver: handle.version ?? 'unknown',
    request: `POST ${CRDS_PATH}`,
    seed: SEED,
    // messages kept as they compare (see comparableMessage): a re-recording differs only where answers do
    cases: cases.map((c, i) => {
      const a = answers[i];
      return {
        id: c.id,
        input: bodyHash(c.body),
        status: a.status,
        ...(a.message !== undefined ? { message: comparableMessage(a.message) } : {}),
      };
    }),
  };
}

/** The error types a cause's body starts with (field.ErrorType's strings). */
const CAUSE_START =
  /, (?=[^\s,]+: (?:Invalid value|Required value|Forbidden|Unsupported value|Duplicate value|Too long|Too many|Internal error|Not found))/;

/**
 * A message as it compares between runs: the apiserver names a rule's type `selfType<nanoseconds>`,
 * generates a name's 5-character suffix at random, lists the causes of several properties in Go's
 * map order (random), and among rules of equal cost names which of them "contributed" to a total
 * over the limit by that order: those are normalized (the causes sorted, the contributors counted).
 */
export function comparableMessage(m: string | undefined): string {
  if (m === undefined) return '';
  let out = m.replace(/selfType\d+/g, 'selfType').replace(/\.[bcdfghjklmnpqrstvwxz2456789]{5}(?=")/g, '.XXXXX');
  const at = out.indexOf(' is invalid: [');
  if (at >= 0 && out.endsWith(']')) {
    const head = out.slice(0, at + ' is invalid: ['.length);
    const causes = out
      .slice(head.length, -1)
      .split(CAUSE_START)
      .map((c) => c.replace(/^\S+(?=: Forbidden: contributed to estimated rule cost total)/, '(a rule)'))
      .sort();
    out = `${head}${causes.join(', ')}]`;
  }
  return out;
}
