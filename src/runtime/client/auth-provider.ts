// Legacy kubeconfig `user.auth-provider` plugins (oidc, gcp, azure): served by
// @kubernetes/client-node's KubeConfig, an optional peer dependency loaded only here,
// lazily, so the common start-up path never pays its import cost.
import type { AuthProviderConfig } from './config.js';

/** The slice of client-node's KubeConfig we use. */
interface KubeConfigLike {
  loadFromString(config: string): void;
  applyToHTTPSOptions(opts: { headers?: Record<string, unknown> }): Promise<void>;
}

/** Loads `@kubernetes/client-node` and returns its KubeConfig class, or throws a clear error. */
async function loadKubeConfigClass(): Promise<new () => KubeConfigLike> {
  const name = '@kubernetes/client-node';
  try {
    const mod = (await import(name)) as { KubeConfig: new () => KubeConfigLike };
    return mod.KubeConfig;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(
        'this kubeconfig user uses a legacy auth-provider, which crdgen/runtime serves through the optional peer ' +
          `dependency ${name}; install it (npm install ${name}@1) or switch the user to an exec credential plugin`,
      );
    }
    throw e;
  }
}

/**
 * Produces an Authorization header for a legacy auth-provider user by delegating to
 * @kubernetes/client-node. The KubeConfig is built once and reused, so the provider's
 * own token caching and refresh apply.
 */
export class AuthProviderAuthenticator {
  private kc: Promise<KubeConfigLike> | undefined;

  /** `server` is the cluster URL the provider config belongs to. */
  constructor(
    private readonly provider: AuthProviderConfig,
    private readonly server: string,
  ) {}

  /** The Authorization header value, or undefined when the provider set none. */
  async authorization(): Promise<string | undefined> {
    this.kc ??= this.build().catch((e: unknown) => {
      this.kc = undefined;
      throw e;
    });
    const kc = await this.kc;
    const opts: { headers: Record<string, unknown> } = { headers: {} };
    await kc.applyToHTTPSOptions(opts);
    const h = opts.headers.Authorization ?? opts.headers.authorization;
    return typeof h === 'string' ? h : undefined;
  }

  private async build(): Promise<KubeConfigLike> {
    const KubeConfig = await loadKubeConfigClass();
    const kc = new KubeConfig();
    kc.loadFromString(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        // Only the Authorization header is taken from client-node; its own agent (which
        // refuses http:// servers unless verification is off) is never used.
        clusters: [{ name: 'c', cluster: { server: this.server, 'insecure-skip-tls-verify': true } }],
        users: [
          { name: 'u', user: { 'auth-provider': { name: this.provider.name, config: this.provider.config ?? {} } } },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    return kc;
  }
}
