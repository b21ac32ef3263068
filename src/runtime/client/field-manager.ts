// Field managers: who the API server records as the writer of each field (managedFields).
// client-go never names one by default: the apiserver takes the User-Agent's product, which
// client-go builds from the binary's name (`kubectl/v1.30.0 (linux/amd64) …` → `kubectl`).
// crdgen does the same with the application's name, and a generated Clientset names its
// field manager explicitly on every write (`ClientsetOptions.fieldManager`; src/runtime/typed/field-manager.ts).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';

/** The apiserver's limit on a field manager's length. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Script names that say nothing about the application: the package's name is used instead. */
const GENERIC_NAMES: ReadonlySet<string> = new Set(['index', 'main', 'cli', 'app', 'server', 'start', 'run']);

/** `s` reduced to what a User-Agent product and a field manager may hold (RFC 7230 token characters). */
function token(s: string): string {
  return s.replace(/[^A-Za-z0-9!#$%&'*+.^_`|~-]/g, '-').slice(0, FIELD_MANAGER_MAX_LENGTH);
}

/** The `name` of the nearest package.json at or above `dir` (scope dropped), if any. */
function packageName(dir: string): string | undefined {
  for (let d = resolve(dir), i = 0; i < 20; i++) {
    const p = join(d, 'package.json');
    if (existsSync(p)) {
      try {
        const name = (JSON.parse(readFileSync(p, 'utf8')) as { name?: unknown }).name;
        if (typeof name === 'string' && name !== '') return name.replace(/^@[^/]+\//, '');
      } catch {
        /* unreadable: go on up */
      }
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return undefined;
}

/**
 * The application's name, as client-go takes the binary's (`filepath.Base(os.Args[0])`): the
 * file name of the script Node runs (`process.argv[1]`) without its extension — `my-operator.js`
 * → `my-operator` —, or for a generic one (`index.js`, `main.ts`, …) the name of the package it
 * belongs to; `node` when there is no script (a REPL, `node -e`).
 */
export function applicationName(argv: readonly string[] = process.argv): string {
  const script = argv[1];
  if (script === undefined || script === '' || script.startsWith('-'))
    return token(basename(argv[0] ?? 'node', extname(argv[0] ?? 'node')) || 'node');
  const name = basename(script, extname(script));
  if (GENERIC_NAMES.has(name)) {
    const pkg = packageName(dirname(resolve(script)));
    if (pkg !== undefined) return token(pkg);
  }
  return token(name) || 'node';
}

/** The field manager the apiserver derives from a User-Agent: the text before the first `/`. */
export function fieldManagerFromUserAgent(userAgent: string): string {
  return token(userAgent.split('/')[0] ?? '') || 'unknown';
}
