// Messages for people and machines: --json, --quiet, -v, colour on a terminal
// (NO_COLOR, --no-color), the progress line for large inputs; crdgen validate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { formatDiagnostic } from '../../src/diagnostics/format.js';
import { FIXTURES, ROOT } from '../golden/support.js';
import { run } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-output-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const MANY = 'fixtures/invalid/many-errors.yaml';
const expectedHeads = readFileSync(join(FIXTURES, 'invalid', 'many-errors.diagnostics'), 'utf8')
  .split('\n')
  .filter((l) => /^\S/.test(l) && !l.startsWith('crdgen:'));

interface JsonDoc {
  command: string;
  ok: boolean;
  exitCode: number;
  diagnostics: Diagnostic[];
  files: Array<{ path: string; action: string }>;
  error?: string;
}

test('--json: one parseable document listing every diagnostic; nothing else on stdout or stderr', async () => {
  for (const cmd of ['generate', 'verify', 'validate']) {
    const r = await run(
      [
        cmd,
        MANY,
        'fixtures/databasemanager/crd.yaml',
        ...(cmd === 'validate' ? [] : ['--out', join(tmp, 'never')]),
        '--json',
      ],
      ROOT,
    );
    assert.equal(r.code, 1, cmd);
    assert.equal(r.stderr, '', cmd);
    const doc = JSON.parse(r.stdout) as JsonDoc;
    assert.equal(doc.command, cmd);
    assert.equal(doc.ok, false);
    assert.equal(doc.exitCode, 1);
    assert.ok(expectedHeads.length >= 5);
    assert.deepEqual(
      doc.diagnostics.map((d) => formatDiagnostic(d).split('\n')[0]),
      expectedHeads,
      cmd,
    );
    for (const d of doc.diagnostics) assert.ok(d.file && d.line && d.col && d.code && d.severity, JSON.stringify(d));
  }
  assert.ok(!existsSync(join(tmp, 'never')));
});

test('--json on success lists every file written with its action; usage errors are JSON too', async () => {
  const out = join(tmp, 'json-ok');
  const r = await run(
    ['generate', 'fixtures/databasemanager/crd.yaml', '--out', out, '--generators', 'types,register', '--json'],
    ROOT,
  );
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as JsonDoc;
  assert.equal(doc.ok, true);
  assert.deepEqual(doc.diagnostics, []);
  const rel = (p: string) => p.slice(p.indexOf('json-ok/'));
  assert.deepEqual(
    doc.files.map((f) => `${f.action} ${rel(f.path)}`),
    ['create json-ok/apis/coolops.cn/v1alpha1/register.ts', 'create json-ok/apis/coolops.cn/v1alpha1/types.ts'],
  );
  const again = JSON.parse(
    (
      await run(
        ['generate', 'fixtures/databasemanager/crd.yaml', '--out', out, '--generators', 'types', '--json'],
        ROOT,
      )
    ).stdout,
  ) as JsonDoc;
  // register's file is not this run's to remove (test/unit/cli/generators.test.ts)
  assert.deepEqual(
    again.files.map((f) => `${f.action} ${rel(f.path)}`),
    ['unchanged json-ok/apis/coolops.cn/v1alpha1/types.ts'],
  );
  const usage = await run(
    ['generate', 'fixtures/databasemanager/crd.yaml', '--out', out, '--readonly', 'Nope', '--json'],
    ROOT,
  );
  assert.equal(usage.code, 2);
  const u = JSON.parse(usage.stdout) as JsonDoc;
  assert.equal(u.ok, false);
  assert.match(u.error ?? '', /kind "Nope"/);
});

test('--quiet prints errors only; -v names every file', async () => {
  const out = join(tmp, 'quiet');
  const q = await run(['generate', 'fixtures/kitchensink/crds.yaml', '--out', out, '--quiet'], ROOT);
  assert.equal(q.code, 0);
  assert.equal(q.stdout, '');
  assert.equal(q.stderr, '', 'the CRD002 warning is not shown with --quiet');
  const loud = await run(['generate', 'fixtures/kitchensink/crds.yaml', '--out', out], ROOT);
  assert.match(loud.stderr, /warning CRD002/);
  const v = await run(
    [
      'generate',
      'fixtures/databasemanager/crd.yaml',
      '--out',
      join(tmp, 'verbose'),
      '--generators',
      'types,register',
      '-v',
    ],
    ROOT,
  );
  assert.match(
    v.stderr,
    /^create {4}\S*verbose\/apis\/coolops\.cn\/v1alpha1\/register\.ts\ncreate {4}\S*verbose\/apis\/coolops\.cn\/v1alpha1\/types\.ts\n$/,
  );
  const qe = await run(['validate', MANY, '-q'], ROOT);
  assert.equal(qe.code, 1);
  assert.match(qe.stderr, /error CRD021/);
  assert.equal((await run(['generate', 'x.yaml', '-q', '-v', '--out', 'o'], ROOT)).code, 2, '-q and -v conflict');
});

test('colour on a terminal only, never with NO_COLOR or --no-color', async () => {
  const args = ['validate', MANY];
  const tty = await run(args, ROOT, { tty: true, env: {} });
  assert.match(tty.stderr, /\u001b\[31merror\u001b\[0m \u001b\[2mCRD021\u001b\[0m/);
  assert.match(tty.stderr, /^\u001b\[1mfixtures\/invalid\/many-errors\.yaml:5:9 \u001b\[0m/m);
  const plain = (await run(args, ROOT, { tty: false })).stderr;
  assert.doesNotMatch(plain, /\u001b/);
  // without the escapes, the coloured text is the plain text
  assert.equal(tty.stderr.replace(/\u001b\[\d+m/g, ''), plain);
  assert.doesNotMatch((await run(args, ROOT, { tty: true, env: { NO_COLOR: '1' } })).stderr, /\u001b/);
  assert.doesNotMatch((await run([...args, '--no-color'], ROOT, { tty: true })).stderr, /\u001b/);
});

test('a progress line on a terminal for hundreds of inputs, erased before the summary; none when not a terminal', async () => {
  const dir = join(tmp, 'many');
  mkdirSync(dir);
  for (let i = 0; i < 100; i++)
    cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(dir, `dm-${String(i).padStart(3, '0')}.yaml`));
  // 100 copies of one CRD: validate reports the duplicates, but it must show progress while reading them
  const tty = await run(['validate', dir], ROOT, { tty: true });
  assert.match(tty.stderr, /\r\u001b\[2K\u001b\[36mcrdgen\u001b\[0m: checking 100 inputs of /);
  assert.match(tty.stderr, /\r\u001b\[2K/);
  const plain = await run(['validate', dir], ROOT, { tty: false });
  assert.doesNotMatch(plain.stderr, /checking 100 inputs/);
  const small = await run(['validate', 'fixtures/databasemanager/crd.yaml'], ROOT, { tty: true });
  assert.doesNotMatch(small.stderr, /checking/);
});

test('validate: exit 0 with a summary on valid input, writes nothing; exit 1 with diagnostics on invalid', async () => {
  const ok = await run(['validate', 'fixtures/databasemanager/crd.yaml', 'fixtures/kitchensink/crds.yaml'], ROOT);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, 'checked 2 inputs (4 kind versions): no errors, 1 warning\n');
  const bad = await run(['validate', 'fixtures/invalid/databasemanager-typo.yaml'], ROOT);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^fixtures\/invalid\/databasemanager-typo\.yaml:\d+:\d+ error CRD030 .*"strin"/m);
});
