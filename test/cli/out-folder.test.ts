// A --out that is not a writable folder is one clear error (OUT001) at once, before any input is
// read: a file, a file above it, a kernel file system (/proc, where Node's recursive mkdir would
// loop forever; /sys). Nothing is written; the run ends in bounded time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../golden/support.js';
import { outDirProblem } from '../../src/emit/out-dir.js';
import { writeFiles, WriteError } from '../../src/emit/writer.js';
import { GENERATED_HEADER } from '../../src/emit/header.js';
import { run } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-out-folder-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const CRD = join(FIXTURES, 'databasemanager', 'crd.yaml');

test('--out naming a file, or a path under a file: OUT001 with the fix, exit 1, the file untouched', async () => {
  writeFileSync(join(tmp, 'notes.txt'), 'mine\n');
  const file = await run(['generate', CRD, '--out', 'notes.txt'], tmp);
  assert.equal(file.code, 1);
  assert.equal(
    file.stderr,
    'notes.txt error OUT001 --out is a file, not a folder\n  hint: give --out a folder (it is created when missing)\ncrdgen: 1 error; nothing was written\n',
  );
  const under = await run(['generate', CRD, '--out', 'notes.txt/gen/x'], tmp);
  assert.equal(under.code, 1);
  assert.match(
    under.stderr,
    /^notes\.txt\/gen\/x error OUT001 --out: notes\.txt is a file, so no folder can be made under it\n/,
  );
  assert.equal(readFileSync(join(tmp, 'notes.txt'), 'utf8'), 'mine\n');
  assert.doesNotMatch(file.stderr + under.stderr, /EEXIST|ENOTDIR|\n\s+at /, 'no raw Node error, no stack');
});

test('--out under /proc or /sys: OUT001 at once (no endless mkdir), nothing read', async () => {
  for (const out of ['/proc/crdgen-out', '/proc/crdgen-out/deeper', '/sys/crdgen-out/x']) {
    // an input that does not exist: the --out problem comes first, before any input is read
    const r = await run(['generate', 'missing.yaml', '--out', out], tmp);
    assert.equal(r.code, 1, out);
    assert.match(
      r.stderr,
      new RegExp(
        `^${out.replace(/\//g, '\\/')} error OUT001 --out is on (proc|sysfs), a kernel file system: no output can go there\\n {2}hint: give --out a folder of your project, e.g\\. src\\/generated\\ncrdgen: 1 error; nothing was written\\n$`,
      ),
    );
  }
});

test('an out from the config is named as the config names it', async () => {
  const dir = join(tmp, 'cfg');
  mkdirSync(dir);
  writeFileSync(join(dir, 'crdgen.config.yaml'), `inputs: [${CRD}]\nout: crdgen.config.yaml\n`);
  const r = await run(['generate'], dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^crdgen\.config\.yaml error OUT001 out is a file, not a folder\n {2}hint: give out a folder/);
});

test('outDirProblem: folders that exist or can be made are fine; the writer refuses the others too', async () => {
  assert.equal(outDirProblem(tmp), undefined);
  assert.equal(outDirProblem(join(tmp, 'new', 'deeper')), undefined);
  writeFileSync(join(tmp, 'plain'), 'x');
  assert.deepEqual(outDirProblem(join(tmp, 'plain')), {
    message: '--out is a file, not a folder',
    hint: 'give --out a folder (it is created when missing)',
  });
  await assert.rejects(
    writeFiles('/proc/crdgen-writer', [{ path: 'a.ts', contents: `${GENERATED_HEADER}\n` }]),
    (e: unknown) =>
      e instanceof WriteError && /^\/proc\/crdgen-writer is on proc, a kernel file system/.test(e.message),
  );
  assert.ok(!existsSync('/proc/crdgen-writer'));
});
