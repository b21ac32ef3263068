// Field managers: who the API server records as the writer of each field (managedFields).
// client-go never names one by default: the apiserver takes the User-Agent's product, which
// client-go builds from the binary's name (`kubectl/v1.30.0 (linux/amd64) …` → `kubectl`).
// crdgen does the same with the application's name, and a generated Clientset names its
// field manager explicitly on every write (`ClientsetOptions.fieldManager`, default below).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { KubeList, KubeObject } from '../meta/types.js';
import type { ResourceClient, ResourceDescriptor } from './resource.js';
import type { ClientBackend } from '../typed/backend.js';

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

type WriteOptions = { fieldManager?: string } | undefined;

/** Where the options argument is, for each write of a ResourceClient. */
const WRITE_OPTIONS_INDEX: Readonly<Record<string, number>> = {
  create: 1,
  update: 1,
  updateStatus: 1,
  patch: 3,
  patchStatus: 3,
  apply: 1,
  applyStatus: 1,
};

/**
 * `backend` with `fieldManager` on every write (create, update, updateStatus, patch,
 * patchStatus, apply, applyStatus, updateScale) that does not name its own.
 */
export function withFieldManager(backend: ClientBackend, fieldManager: string): ClientBackend {
  const withDefault = (o: WriteOptions): WriteOptions => (o?.fieldManager ? o : { ...(o ?? {}), fieldManager });
  const wrap = <T extends KubeObject, TList extends KubeList<T>>(
    client: ResourceClient<T, TList>,
  ): ResourceClient<T, TList> =>
    new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        if (prop === 'namespace') return (ns: string) => wrap(target.namespace(ns));
        const at = typeof prop === 'string' ? WRITE_OPTIONS_INDEX[prop] : undefined;
        if (at === undefined) return (value as (...a: unknown[]) => unknown).bind(target);
        return (...args: unknown[]) => {
          const a = [...args];
          while (a.length < at) a.push(undefined);
          a[at] = withDefault(a[at] as WriteOptions);
          return (value as (...x: unknown[]) => unknown).apply(target, a);
        };
      },
    });
  return {
    resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
      descriptor: ResourceDescriptor,
      namespace?: string,
    ) {
      return wrap(backend.resource<T, TList>(descriptor, namespace));
    },
    scale(descriptor: ResourceDescriptor, namespace?: string) {
      const s = backend.scale(descriptor, namespace);
      return {
        getScale: (name, options) => s.getScale(name, options),
        updateScale: (name, scale, options) => s.updateScale(name, scale, withDefault(options)),
      };
    },
  };
}

/**
 * The field manager a clientset over `config` writes as by default: for a RestConfig, the one the
 * API server would derive from its User-Agent (`userAgent`, else `defaultUserAgent`'s
 * application name); for any other backend (a fake), {@link applicationName}.
 */
export function defaultFieldManager(config: { userAgent?: string } | ClientBackend): string {
  if ('resource' in config && typeof config.resource === 'function') return applicationName();
  const ua = (config as { userAgent?: string }).userAgent;
  return ua ? fieldManagerFromUserAgent(ua) : applicationName();
}
