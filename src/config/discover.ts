// Finding the config: the first folder, from the current one up to the file-system
// root, that holds crdgen.config.yaml, .yml or .json, or a package.json with a
// "crdgen" key.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** File names tried in each folder, in this order. */
export const CONFIG_FILE_NAMES = ['crdgen.config.yaml', 'crdgen.config.yml', 'crdgen.config.json'] as const;

function packageJsonHasConfig(file: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof pkg === 'object' && pkg !== null && Object.hasOwn(pkg, 'crdgen');
  } catch {
    return false;
  }
}

/**
 * The config file that applies in `cwd`: walks up from `cwd` and returns the first
 * match (absolute path), or undefined. In one folder a crdgen.config.* file wins
 * over package.json; a package.json without "crdgen" does not stop the walk.
 */
export function findConfigFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const p = join(dir, name);
      if (existsSync(p)) return p;
    }
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && packageJsonHasConfig(pkg)) return pkg;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
