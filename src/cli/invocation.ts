// How the user runs crdgen, so that messages ("To fix it, run: …", "next: …") name a command
// that works where they typed it:
// - `crdgen` when this very crdgen is on PATH (a global install, `npm link`): a PATH folder other
//   than a node_modules/.bin holds a `crdgen` that resolves to this package's bin/crdgen.js;
// - else the package runner that started it, from npm_config_user_agent (`pnpm exec crdgen`,
//   `yarn crdgen`, `bunx crdgen`), else `npx crdgen` (a local install, run through npx,
//   node_modules/.bin or an npm script, where npm puts node_modules/.bin on PATH itself).
// CRDGEN_COMMAND overrides it (a wrapper script, a Makefile target).

import { realpathSync } from 'node:fs';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './io.js';

/** This package's bin/crdgen.js (src/cli, dist/cli and dist/cli-bundle are all two folders below the root). */
export const BIN_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'crdgen.js');

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The command that runs crdgen as the user runs it, from the environment (`PATH`,
 * `npm_config_user_agent`, `CRDGEN_COMMAND`) and the bin script it should find (default: this package's).
 */
export function detectCommand(env: Readonly<Record<string, string | undefined>>, bin: string = BIN_PATH): string {
  const override = env['CRDGEN_COMMAND']?.trim();
  if (override) return override;
  const ours = real(bin);
  if (ours !== undefined) {
    for (const dir of (env['PATH'] ?? '').split(delimiter)) {
      if (dir === '' || dir.replace(/[\\/]+$/, '').endsWith(`node_modules${sep}.bin`)) continue;
      if (real(join(dir, 'crdgen')) === ours) return 'crdgen';
    }
  }
  const agent = env['npm_config_user_agent'] ?? '';
  if (agent.startsWith('pnpm/')) return 'pnpm exec crdgen';
  if (agent.startsWith('yarn/')) return 'yarn crdgen';
  if (agent.startsWith('bun/')) return 'bunx crdgen';
  return 'npx crdgen';
}

/** The command for messages of this run: `io.command` when set, else detected from `io.env` (in-process runs without an environment: `npx crdgen`). */
export function commandOf(io: CliIo): string {
  return io.command ?? detectCommand(io.env ?? {});
}
