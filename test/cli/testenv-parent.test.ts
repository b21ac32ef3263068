// `npx crdgen testenv &` stopped by the PID the shell gave: npm passes the SIGTERM on to the shell
// it runs crdgen in, and the shell dies without passing it on. Run by npm (npm_command in its
// environment), testenv stops when its parent process exits; run otherwise (nohup, a supervisor),
// it keeps running when its parent goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../golden/support.js';

const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => T | undefined, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `sh -c 'crdgen testenv … & echo $!; wait'`, as npm runs a bin: the shell's pid, testenv's pid, its output. */
async function startUnderShell(dir: string, env: NodeJS.ProcessEnv) {
  const sh = spawn(
    'sh',
    [
      '-c',
      `"${process.execPath}" --import tsx "${MAIN}" testenv --kubeconfig "${join(dir, 'kc')}" & echo "pid $!"; wait`,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }, // tsx resolves from the repository
  );
  let out = '';
  sh.stdout.on('data', (b: Buffer) => void (out += b.toString()));
  sh.stderr.on('data', (b: Buffer) => void (out += b.toString()));
  const pid = await until('the pid', () => {
    const m = /^pid (\d+)$/m.exec(out);
    return m ? Number(m[1]) : undefined;
  });
  await until('testenv to listen', () => (/Press Ctrl-C/.test(out) ? true : undefined));
  const url = (
    JSON.parse(readFileSync(join(dir, 'kc'), 'utf8')) as { clusters: Array<{ cluster: { server: string } }> }
  ).clusters[0].cluster.server;
  return { sh, pid, url, output: () => out };
}

test('run by npm: the shell it ran in killed, testenv stops and says why', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-parent-'));
  const { sh, pid, url, output } = await startUnderShell(dir, { ...process.env, npm_command: 'exec' });
  t.after(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal((await fetch(`${url}/version`)).status, 200);
  sh.kill('SIGTERM');
  await until('testenv to exit', () => (alive(pid) ? undefined : true));
  assert.match(output(), /crdgen testenv: parent process \d+ exited \(npm does not pass signals on\): stopping\n/);
  await assert.rejects(fetch(`${url}/version`), 'the server is down');
});

test(
  'not run by npm: testenv outlives its parent (nohup, a supervisor) until a signal of its own',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-parent-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const { sh, pid, url } = await startUnderShell(dir, env);
    t.after(() => {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    sh.kill('SIGTERM');
    await new Promise((r) => sh.once('exit', r));
    await new Promise((r) => setTimeout(r, 2_000)); // four times the watch's interval
    assert.ok(alive(pid));
    assert.equal((await fetch(`${url}/version`)).status, 200);
    process.kill(pid, 'SIGTERM');
    await until('testenv to exit', () => (alive(pid) ? undefined : true));
  },
);
