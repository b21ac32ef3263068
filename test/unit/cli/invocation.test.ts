// Messages name the command as the user runs it: `crdgen` when this crdgen is on PATH,
// `npx crdgen` (or the package runner's form) when it is installed in the project.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { BIN_PATH, detectCommand } from '../../../src/cli/invocation.js';
import { ROOT } from '../../golden/support.js';
import { run } from '../../cli/support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-invocation-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

// a global install: <prefix>/bin/crdgen → <prefix>/lib/node_modules/crdgen/bin/crdgen.js (this package's)
const globalBin = join(tmp, 'prefix', 'bin');
mkdirSync(globalBin, { recursive: true });
symlinkSync(BIN_PATH, join(globalBin, 'crdgen'));
// a project's node_modules/.bin, which npm puts on PATH for npx and npm scripts
const localBin = join(tmp, 'project', 'node_modules', '.bin');
mkdirSync(localBin, { recursive: true });
symlinkSync(BIN_PATH, join(localBin, 'crdgen'));
// another crdgen on PATH (another version, another program)
const otherBin = join(tmp, 'other');
mkdirSync(otherBin);
writeFileSync(join(otherBin, 'crdgen'), '#!/bin/sh\n', { mode: 0o755 });

test('crdgen when this crdgen is on PATH; npx crdgen when only a node_modules/.bin or another crdgen has it', () => {
  const path = (...dirs: string[]) => [...dirs, '/usr/bin'].join(delimiter);
  assert.equal(detectCommand({ PATH: path(globalBin) }), 'crdgen');
  assert.equal(detectCommand({ PATH: path(localBin, globalBin) }), 'crdgen');
  assert.equal(detectCommand({ PATH: path(localBin) }), 'npx crdgen');
  assert.equal(detectCommand({ PATH: path(`${localBin}/`) }), 'npx crdgen');
  assert.equal(detectCommand({ PATH: path(otherBin) }), 'npx crdgen');
  assert.equal(detectCommand({}), 'npx crdgen');
  assert.equal(detectCommand({ PATH: path(globalBin) }, join(tmp, 'missing.js')), 'npx crdgen');
});

test('the package runner that started crdgen names it; CRDGEN_COMMAND overrides', () => {
  assert.equal(
    detectCommand({ PATH: localBin, npm_config_user_agent: 'npm/11.6.0 node/v20.20.2 linux x64 workspaces/false' }),
    'npx crdgen',
  );
  assert.equal(
    detectCommand({ PATH: localBin, npm_config_user_agent: 'pnpm/9.15.0 npm/? node/v20.20.2 linux x64' }),
    'pnpm exec crdgen',
  );
  assert.equal(
    detectCommand({ PATH: localBin, npm_config_user_agent: 'yarn/1.22.22 npm/? node/v20.20.2 linux x64' }),
    'yarn crdgen',
  );
  assert.equal(detectCommand({ PATH: globalBin, npm_config_user_agent: 'pnpm/9.15.0' }), 'crdgen', 'on PATH wins');
  assert.equal(detectCommand({ PATH: globalBin, CRDGEN_COMMAND: 'make crdgen ARGS=' }), 'make crdgen ARGS=');
});

test('verify, init and the no-inputs usage error name the command as detected', async () => {
  const dir = join(tmp, 'work');
  mkdirSync(dir);
  cpSync(join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml'), join(dir, 'crd.yaml'));
  for (const [env, cmd] of [
    [{ PATH: [localBin, '/usr/bin'].join(delimiter) }, 'npx crdgen'],
    [{ PATH: [globalBin, '/usr/bin'].join(delimiter) }, 'crdgen'],
  ] as const) {
    const v = await run(['verify', 'crd.yaml', '--out', 'gen'], dir, { env });
    assert.equal(v.code, 1);
    assert.match(v.stderr, new RegExp(`To fix it, run:\\n {2}${cmd} generate crd\\.yaml --out gen\\n$`), cmd);
    const none = await run(['generate'], join(tmp), { env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, new RegExp(`or write a crdgen\\.config\\.yaml \\(${cmd} init\\)`));
    const help = await run(['generate', '--help'], dir, { env });
    assert.match(help.stdout, new RegExp(`\\n {2}${cmd} generate --generators \\+crd `));
  }
});
