// `crdgen testenv`: runs an in-process Kubernetes API server until SIGINT/SIGTERM, writes
// its kubeconfig, pre-installs CRDs, and logs requests at -v. Started by npm (`npx crdgen testenv
// &`, `npm run`), it also stops when its parent process exits: npm passes a SIGTERM on to the
// shell it runs crdgen in, and the shell does not pass it on, so `kill <npx's pid>` would leave
// the server running. With --real, the same command
// runs the real control plane instead (etcd + kube-apiserver from --assets DIR, and with
// --simulate-workloads kube-controller-manager, kube-scheduler and kwok).
import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { EXIT, processIo } from './io.js';
import type { CliContext } from './io.js';

function parseDelay(v: string | undefined): number | true {
  if (v === undefined || v === '') return true;
  const m = /^(\d+)(ms|s)?$/.exec(v);
  if (!m) throw new InvalidArgumentError(`"${v}" is not a delay (e.g. 500ms, 2s)`);
  return m[2] === 's' ? Number(m[1]) * 1000 : Number(m[1]);
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`"${v}" is not a port number`);
  return n;
}

function parseEndpoints(v: string): string[] {
  const list = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const e of list) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(e))
      throw new InvalidArgumentError(`"${e}" is not an etcd endpoint (e.g. http://127.0.0.1:2379)`);
  }
  if (!list.length) throw new InvalidArgumentError('give at least one etcd endpoint');
  return list;
}

/** Options of `crdgen testenv`. */
export interface TestenvOptions {
  kubeconfig: string;
  crd: string[];
  port: number;
  https?: boolean;
  simulateWorkloads?: number | true;
  verbose?: boolean;
  etcd?: string[];
  etcdPrefix: string;
  real?: boolean;
  assets?: string;
  webhooks: string[];
  webhookHost?: string;
  webhookCertDir?: string;
}

function parseWebhookHostOption(v: string): string {
  const m = /^(?:\[[0-9a-fA-F:]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(v);
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535)
    throw new InvalidArgumentError(`"${v}" is not host:port (e.g. 127.0.0.1:9443)`);
  return v;
}

/** The `webhooks` option of both servers, or why the flags do not make one. */
function webhookOption(
  opts: TestenvOptions,
  cwd: string,
): { error: string } | { value: import('../testing/webhook-install.js').WebhookInstallOptions | undefined } {
  if (!opts.webhooks.length) {
    const stray = [
      opts.webhookHost !== undefined && '--webhook-host',
      opts.webhookCertDir !== undefined && '--webhook-cert-dir',
    ].filter(Boolean);
    return stray.length
      ? { error: `${stray.join(' and ')} ${stray.length > 1 ? 'need' : 'needs'} --webhooks FILE` }
      : { value: undefined };
  }
  return {
    value: {
      configurations: opts.webhooks.map((f) => resolve(cwd, f)),
      ...(opts.webhookHost ? { host: opts.webhookHost } : {}),
      ...(opts.webhookCertDir ? { certDir: resolve(cwd, opts.webhookCertDir) } : {}),
    },
  };
}

/** The lines telling how to run the operator's webhook server against the installed configurations. */
function webhookLines(w: import('../testing/webhook-install.js').InstalledWebhooks | undefined): string {
  if (!w) return '';
  return (
    `webhooks: ${w.configurations.length} configuration(s) installed, calling https://${w.host}; serving certificate in ${w.certDir} (tls.crt, tls.key; CA in ca.crt)\n` +
    `  run the operator with --webhook-bind-address ${w.host} --webhook-cert-dir ${w.certDir}\n`
  );
}

const defaultContext = (): CliContext => ({ io: processIo(), setExitCode: (c) => void (process.exitCode = c) });

/** Builds the `testenv` command (a factory for src/cli/main.ts). */
export function createTestenvCommand(ctx: CliContext = defaultContext()): Command {
  const { io } = ctx;
  return new Command('testenv')
    .description('run an in-process Kubernetes API server for local development and tests (until Ctrl-C)')
    .option('--kubeconfig <path>', 'where to write the kubeconfig', './testenv.kubeconfig')
    .option(
      '--crd <file>',
      'CRD YAML file to install at start (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--port <port>', 'port on 127.0.0.1 (0: a free port)', parsePort, 0)
    .option('--https', 'serve HTTPS with a generated self-signed certificate')
    .option(
      '--simulate-workloads [delay]',
      'make Deployments become available after a delay (default 100ms)',
      parseDelay,
    )
    .option(
      '--etcd <endpoints>',
      'keep objects in etcd (comma-separated client URLs; needs the npm package etcd3)',
      parseEndpoints,
    )
    .option('--etcd-prefix <prefix>', 'key prefix in etcd', '/registry')
    .option(
      '--real',
      'run the real control plane (etcd + kube-apiserver; with --simulate-workloads also kube-controller-manager, kube-scheduler and kwok)',
    )
    .option('--assets <dir>', 'with --real: the folder of binaries (default $KUBEBUILDER_ASSETS)')
    .option(
      '--webhooks <file>',
      'install the Mutating/ValidatingWebhookConfigurations of this YAML file (e.g. config/webhook/manifests.yaml), rewritten to call --webhook-host (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option(
      '--webhook-host <host:port>',
      'with --webhooks: where the webhook server listens (default 127.0.0.1:9443)',
      parseWebhookHostOption,
    )
    .option(
      '--webhook-cert-dir <dir>',
      'with --webhooks: where to write the generated tls.crt, tls.key and ca.crt (default: a temporary folder)',
    )
    .option('-v, --verbose', "log every request (with --real: every component's output)")
    .action(async (opts: TestenvOptions) => {
      const kubeconfigPath = resolve(io.cwd, opts.kubeconfig);
      const hooks = webhookOption(opts, io.cwd);
      if ('error' in hooks) {
        io.stderr(`crdgen testenv: ${hooks.error}\n`);
        ctx.setExitCode(EXIT.usage);
        return;
      }
      if (opts.real) return runReal(ctx, opts, kubeconfigPath, hooks.value);
      if (opts.assets !== undefined) {
        io.stderr('crdgen testenv: --assets needs --real\n');
        ctx.setExitCode(EXIT.usage);
        return;
      }
      const { startTestApiServer } = await import('../testing/index.js');
      let env;
      try {
        env = await startTestApiServer({
          crds: opts.crd.map((f) => resolve(io.cwd, f)),
          port: opts.port,
          https: opts.https === true,
          simulateWorkloads: opts.simulateWorkloads === undefined ? false : opts.simulateWorkloads,
          kubeconfigPath,
          log: opts.verbose ? (line) => io.stderr(`${line}\n`) : undefined,
          ...(opts.etcd ? { etcd: { endpoints: opts.etcd, prefix: opts.etcdPrefix } } : {}),
          ...(hooks.value ? { webhooks: hooks.value } : {}),
        });
      } catch (e) {
        io.stderr(`crdgen testenv: ${(e as Error).message}\n`);
        ctx.setExitCode(EXIT.invalidInput);
        return;
      }
      io.stdout(
        `crdgen testenv: API server listening on ${env.url}${opts.etcd ? ` (storage: etcd ${opts.etcd.join(',')})` : ''}\n` +
          `kubeconfig written to ${kubeconfigPath}\n` +
          webhookLines(env.webhooks) +
          `\n  export KUBECONFIG=${kubeconfigPath}\n` +
          `  kubectl get crd\n\n` +
          `Press Ctrl-C to stop.\n`,
      );
      const why = await untilStopped(io.env);
      if (why.startsWith('parent')) io.stderr(`crdgen testenv: ${why}: stopping\n`);
      await env.stop();
      io.stderr('crdgen testenv: stopped\n');
    });
}

/**
 * Waits for SIGINT or SIGTERM (once) and says which came; run by npm (its environment has
 * `npm_command`), also for the parent process to exit (`parent process <pid> exited`).
 */
function untilStopped(env: Readonly<Record<string, string | undefined>> | undefined): Promise<string> {
  return new Promise((done) => {
    const parent = process.ppid;
    let watch: NodeJS.Timeout | undefined;
    // a listener gets the signal's name from a real signal, nothing from process.emit('SIGINT')
    const finish = (why?: string): void => {
      process.off('SIGINT', finish);
      process.off('SIGTERM', finish);
      clearInterval(watch);
      done(why ?? 'signal');
    };
    process.on('SIGINT', finish);
    process.on('SIGTERM', finish);
    if (env?.['npm_command'] !== undefined) {
      // reparented: the shell npm ran crdgen in (or npm itself) is gone
      watch = setInterval(() => {
        if (process.ppid !== parent) finish(`parent process ${parent} exited (npm does not pass signals on)`);
      }, 500);
      watch.unref();
    }
  });
}

async function runReal(
  ctx: CliContext,
  opts: TestenvOptions,
  kubeconfigPath: string,
  webhooks: import('../testing/webhook-install.js').WebhookInstallOptions | undefined,
): Promise<void> {
  const { io } = ctx;
  const conflicting = [opts.etcd && '--etcd', opts.https && '--https (the real apiserver always serves HTTPS)'].filter(
    Boolean,
  );
  if (conflicting.length) {
    io.stderr(`crdgen testenv: --real does not take ${conflicting.join(' or ')}\n`);
    ctx.setExitCode(EXIT.usage);
    return;
  }
  const { startControlPlane } = await import('../testing/control-plane.js');
  const log = (line: string): void => io.stderr(`crdgen testenv: ${line}\n`);
  // a signal while starting stops what has started
  const signal = untilStopped(io.env);
  let cp;
  try {
    const starting = startControlPlane({
      assets: opts.assets === undefined ? undefined : resolve(io.cwd, opts.assets),
      crds: opts.crd.map((f) => resolve(io.cwd, f)),
      workloads: opts.simulateWorkloads !== undefined,
      kubeconfigPath,
      log,
      verbose: opts.verbose === true,
      ...(webhooks ? { webhooks } : {}),
    });
    const first = await Promise.race([starting.then((c) => ({ c })), signal.then((s) => ({ s }))]);
    if ('s' in first) {
      log(`${first.s} while starting: stopping`);
      await starting.then(
        (c) => c.stop(),
        () => undefined,
      );
      return;
    }
    cp = first.c;
  } catch (e) {
    io.stderr(`crdgen testenv: ${(e as Error).message}\n`);
    ctx.setExitCode(EXIT.invalidInput);
    return;
  }
  io.stdout(
    `crdgen testenv: kube-apiserver ${cp.version} listening on ${cp.url} (etcd ${cp.etcdEndpoint}${opts.simulateWorkloads !== undefined ? '; kube-controller-manager, kube-scheduler, kwok' : ''})\n` +
      `kubeconfig written to ${kubeconfigPath}\n` +
      webhookLines(cp.webhooks) +
      `\n  export KUBECONFIG=${kubeconfigPath}\n` +
      `  kubectl get crd\n\n` +
      `Press Ctrl-C to stop.\n`,
  );
  const outcome = await Promise.race([signal.then((s) => ({ s })), cp.failed.then((f) => ({ f }))]);
  if ('f' in outcome) {
    io.stderr(
      `crdgen testenv: ${outcome.f.component} exited (${outcome.f.code}); stopped the rest. Its last output:\n${outcome.f.logTail}\n`,
    );
    ctx.setExitCode(EXIT.invalidInput);
    return;
  }
  if (outcome.s.startsWith('parent')) log(`${outcome.s}: stopping`);
  await cp.stop();
  io.stderr('crdgen testenv: stopped\n');
}
