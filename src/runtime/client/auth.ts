// Request credentials from a RestConfig: bearer token, token file (re-read as it
// rotates), basic auth, exec plugins and legacy auth-providers; refreshed on 401.
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import type { RestConfig } from './config.js';
import {
  ExecCredentialProvider,
  type ExecClusterInfo,
  type ExecCredentialResult,
  type ExecRunner,
} from './exec-credential.js';
import { AuthProviderAuthenticator } from './auth-provider.js';

/** How often a token file is re-read (client-go's cached file token source: one minute). */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** Credentials for one request. */
export interface Credentials {
  /** The Authorization header, if any. */
  authorization?: string;
  /** A client certificate from an exec plugin (replaces the config's static one). */
  clientCert?: { cert: string; key: string };
  /** The exec credential used, so a 401 can invalidate exactly it. */
  exec?: ExecCredentialResult;
}

/** Options of the Authenticator, for tests. */
export interface AuthenticatorOptions {
  execRunner?: ExecRunner;
  now?: () => number;
}

/**
 * Hands out the credentials of every request and refreshes them after a 401.
 * Precedence (first configured wins): exec plugin, auth-provider, token file, token, basic.
 */
export class Authenticator {
  private readonly exec: ExecCredentialProvider | undefined;
  private readonly provider: AuthProviderAuthenticator | undefined;
  private fileToken: { value: string; readAt: number } | undefined;
  private readonly now: () => number;

  /** Builds the authenticator of `config`; invalid exec settings throw here. */
  constructor(
    private readonly config: RestConfig,
    options: AuthenticatorOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const a = config.auth ?? {};
    if (a.exec) {
      const info = a.exec.provideClusterInfo ? clusterInfo(config) : undefined;
      this.exec = new ExecCredentialProvider(a.exec, info, options.execRunner, this.now);
    } else if (a.authProvider) this.provider = new AuthProviderAuthenticator(a.authProvider, config.server);
  }

  /** True when a 401 may be cured by fetching credentials again. */
  get refreshable(): boolean {
    return this.exec !== undefined || this.provider !== undefined || this.config.auth?.bearerTokenFile !== undefined;
  }

  /** Credentials for the next request. */
  async credentials(signal?: AbortSignal): Promise<Credentials> {
    const a = this.config.auth ?? {};
    if (this.exec) {
      const c = await this.exec.get(signal);
      return {
        ...(c.token ? { authorization: `Bearer ${c.token}` } : {}),
        ...(c.clientCertificateData && c.clientKeyData
          ? { clientCert: { cert: c.clientCertificateData, key: c.clientKeyData } }
          : {}),
        exec: c,
      };
    }
    if (this.provider) {
      const h = await this.provider.authorization();
      return h ? { authorization: h } : {};
    }
    if (a.bearerTokenFile) {
      const t = await this.tokenFromFile(false);
      if (t) return { authorization: `Bearer ${t}` };
    }
    if (a.bearerToken) return { authorization: `Bearer ${a.bearerToken}` };
    if (a.username !== undefined || a.password !== undefined) {
      return { authorization: `Basic ${Buffer.from(`${a.username ?? ''}:${a.password ?? ''}`).toString('base64')}` };
    }
    return {};
  }

  /** Called after a 401 answered a request made with `used`; true when a retry may succeed. */
  async unauthorized(used: Credentials): Promise<boolean> {
    if (this.exec) return this.exec.invalidate(used.exec);
    if (this.provider) return true;
    if (this.config.auth?.bearerTokenFile) {
      const before = this.fileToken?.value;
      const after = await this.tokenFromFile(true);
      return after !== undefined && after !== before;
    }
    return false;
  }

  private async tokenFromFile(force: boolean): Promise<string | undefined> {
    const file = this.config.auth?.bearerTokenFile;
    if (!file) return undefined;
    const cached = this.fileToken;
    if (!force && cached && this.now() - cached.readAt < TOKEN_FILE_REFRESH_MS) return cached.value;
    try {
      const value = (await readFile(file, 'utf8')).trim();
      if (!value) throw new Error('the file is empty');
      this.fileToken = { value, readAt: this.now() };
      return value;
    } catch (e) {
      // Keep serving the last good token while a rotation is in progress; fail only if none.
      if (cached) return cached.value;
      if (this.config.auth?.bearerToken) return undefined;
      throw new Error(`cannot read bearer token file ${file}: ${(e as Error).message}`);
    }
  }
}

/** The cluster info an exec plugin with provideClusterInfo receives. */
function clusterInfo(config: RestConfig): ExecClusterInfo {
  const tls = config.tls ?? {};
  // As client-go, a CA given as a file is read so the plugin gets its data.
  let caData = tls.caData;
  if (caData === undefined && tls.caFile) {
    try {
      caData = readFileSync(tls.caFile);
    } catch (e) {
      throw new Error(
        `cannot read certificate-authority file ${tls.caFile} for the exec plugin's cluster info: ${(e as Error).message}`,
      );
    }
  }
  const ca = caData === undefined ? undefined : Buffer.from(caData).toString('base64');
  return {
    server: config.server,
    ...(tls.serverName ? { 'tls-server-name': tls.serverName } : {}),
    ...(tls.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca ? { 'certificate-authority-data': ca } : {}),
    ...(config.proxyUrl ? { 'proxy-url': config.proxyUrl } : {}),
    ...(config.auth?.exec?.clusterConfig !== undefined ? { config: config.auth.exec.clusterConfig } : {}),
  };
}
