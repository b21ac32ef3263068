// The programs the suites drive, as npm test's set-up (scripts/test-setup.sh, run by
// scripts/run-tests.mjs) provides them. A missing one FAILS the suite with the fix.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOW =
  'run the tests with `npm test` or `node scripts/run-tests.mjs …`: their set-up builds it (scripts/test-setup.sh)';

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The control plane's bin folder (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok). */
export function controlPlaneAssets(): string {
  const fromEnv = process.env.CRDGEN_TEST_ASSETS;
  if (fromEnv && executable(join(fromEnv, 'kube-apiserver'))) return fromEnv;
  // run outside run-tests.mjs: the one cached build, if there is exactly one
  const base = join(ROOT, '.cache', 'control-plane');
  const found = existsSync(base)
    ? readdirSync(base)
        .map((v) => join(base, v, 'bin'))
        .filter((d) => executable(join(d, 'kube-apiserver')))
    : [];
  if (found.length === 1) return found[0];
  throw new Error(`the real control plane is not built: ${HOW}`);
}

/** etcd 3.6, built with the control plane (the etcd-backed suites and the soak run it). */
export function etcdBinary(): string {
  return join(controlPlaneAssets(), 'etcd');
}

/** kubectl of the control plane's version. */
export function kubectlReal(): string {
  return join(controlPlaneAssets(), 'kubectl');
}

/** Debian's kubectl 1.20 ($KUBECTL overrides it), the old client the conformance tests also drive. */
export function kubectl120(): string {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const p = process.env.CRDGEN_KUBECTL_1_20 ?? join(ROOT, '.cache', 'kubectl-1.20', 'usr', 'bin', 'kubectl');
  if (executable(p)) return p;
  throw new Error(`Debian's kubectl 1.20 is not unpacked: ${HOW}`);
}

/**
 * The hash scripts/ensure-go-clients.sh names its build folder by: sha256 of the `sha256sum`
 * lines of test/clientgo's .go files, go.mod and go.sum (`./path`, byte order), 16 hex digits.
 */
function goClientsStamp(): string {
  const src = join(ROOT, 'test', 'clientgo');
  const files: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}/${e.name}`);
      else if (e.isFile() && (e.name.endsWith('.go') || e.name === 'go.mod' || e.name === 'go.sum'))
        files.push(`${rel}/${e.name}`);
    }
  };
  walk(src, '.');
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lines = files
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(join(src, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
  return createHash('sha256').update(lines).digest('hex').slice(0, 16);
}

/** The Go clients (scripts/ensure-go-clients.sh): `sample-controller`, `informer`, `typed`, `protobuf-messages`, and `examples/` (sample-controller's CRDs and example-foo). */
export function goClientsBin(): string {
  const dir = process.env.CRDGEN_GO_CLIENTS ?? join(ROOT, '.cache', 'go-clients', goClientsStamp(), 'bin');
  if (['sample-controller', 'informer', 'typed', 'protobuf-messages'].every((b) => executable(join(dir, b))))
    return dir;
  throw new Error(`sample-controller and the client-go informer are not built: ${HOW}`);
}

/** PYTHONPATH of Debian's python3-kubernetes, unpacked by scripts/ensure-python-kubernetes.sh (run with /usr/bin/python3). */
export function pythonKubernetesPath(): string {
  const dir =
    process.env.CRDGEN_PYTHON_KUBERNETES ??
    join(ROOT, '.cache', 'python-kubernetes', 'usr', 'lib', 'python3', 'dist-packages');
  if (existsSync(join(dir, 'kubernetes', '__init__.py'))) return dir;
  throw new Error(`Debian's python3-kubernetes is not unpacked: ${HOW}`);
}
