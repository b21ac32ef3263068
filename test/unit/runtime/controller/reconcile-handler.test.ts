// What follows each reconcile (the controller's reconcileHandler): a finished reconcile is
// forgotten, requeued after its delay or with backoff, and logs one line at debug; a failed one is
// retried with backoff (a terminal error is dropped, a conflict retried quietly) and logs one line
// at error. Every reconcile ends with exactly one line carrying its key, result, start and duration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiError,
  ConfigMapResource,
  FakeClientBackend,
  TerminalError,
  newControllerManagedBy,
  newManager,
  type ConfigMap,
  type LogFields,
  type Logger,
  type Result,
} from '../../../../src/runtime/index.js';

interface Line extends LogFields {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
}

/** A logger that keeps every line with the fields bound by `child`. */
function recordingLogger(lines: Line[], bound: LogFields = {}): Logger {
  const at =
    (level: Line['level']) =>
    (fields: LogFields | string, msg?: string): void =>
      void lines.push(
        typeof fields === 'string' ? { ...bound, level, msg: fields } : { ...bound, ...fields, level, msg: msg ?? '' },
      );
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(lines, { ...bound, ...more }),
  };
}

const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });

async function until(p: () => boolean, what: string, detail: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!p()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('one line ends each reconcile: debug when it finished (success, requeue, requeue after a delay, a conflict), error when it failed', async () => {
  const conflict = new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason: 'Conflict',
    code: 409,
    message: 'the object has been modified',
  });
  // what each key's reconciles return (or throw), in turn; then {}
  const script: Record<string, (() => Result | void)[]> = {
    ok: [() => undefined],
    later: [() => ({ requeueAfterMs: 600_000 })],
    again: [() => ({ requeue: true })],
    conflict: [
      () => {
        throw conflict;
      },
    ],
    terminal: [
      () => {
        throw new TerminalError(new Error('spec cannot work'));
      },
    ],
    fails: [
      () => {
        throw new Error('boom');
      },
    ],
    bad: [() => ({ requeueAfterMs: -1 })],
  };
  const calls: string[] = [];
  const lines: Line[] = [];
  const fake = new FakeClientBackend([ConfigMapResource], Object.keys(script).map(cm));
  const manager = newManager({ client: fake, name: 'unit', logger: recordingLogger(lines) });
  newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .complete((request) => {
      calls.push(request.name);
      const next = script[request.name].shift();
      return Promise.resolve(next ? next() : {});
    });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  // the keys that come back (requeue, conflict, error) end with a success; `later` waits 10 min
  const want: Record<string, string[]> = {
    ok: ['success'],
    later: ['requeue_after'],
    again: ['requeue', 'success'],
    conflict: ['requeue', 'success'],
    terminal: ['error'],
    fails: ['error', 'success'],
    bad: ['error', 'success'],
  };
  const ends = (): Line[] => lines.filter((l) => typeof l['result'] === 'string');
  const results = (key: string): string[] =>
    ends()
      .filter((l) => l['name'] === key)
      .map((l) => String(l['result']));
  try {
    await until(
      () => Object.entries(want).every(([k, r]) => results(k).join() === r.join()),
      'every key reconciled as scripted',
      () => lines.map((l) => JSON.stringify(l)).join('\n'),
    );
  } finally {
    ac.abort();
    await done;
  }
  assert.equal(ends().length, calls.length, 'one end line per reconcile');
  for (const l of ends()) {
    assert.equal(l['key'], `ns/${String(l['name'])}`);
    assert.equal(l['namespace'], 'ns');
    assert.equal(l['controller'], 'configmap');
    assert.ok(Number.isFinite(Date.parse(String(l['startedAt']))), JSON.stringify(l));
    assert.ok(typeof l['durationMs'] === 'number' && l['durationMs'] >= 0, JSON.stringify(l));
    assert.equal(l.level, l['result'] === 'error' ? 'error' : 'debug', JSON.stringify(l));
  }
  const at = (name: string, result: string): Line => ends().find((l) => l['name'] === name && l['result'] === result)!;
  assert.equal(at('ok', 'success').msg, 'reconciled');
  assert.equal(at('later', 'requeue_after')['requeueAfterMs'], 600_000);
  assert.equal(at('again', 'requeue').msg, 'reconciled');
  assert.match(String(at('conflict', 'requeue')['err']), /modified/, 'a conflict says why it came back');
  assert.match(at('terminal', 'error').msg, /terminal error; not requeued/);
  assert.match(String(at('fails', 'error')['err']), /boom/);
  assert.equal(at('fails', 'error')['retries'], 1);
  assert.match(String(at('bad', 'error')['err']), /requeueAfterMs -1/);
  assert.ok(!lines.some((l) => l.level === 'info' && l['result'] !== undefined), 'no reconcile is logged at info');
});
