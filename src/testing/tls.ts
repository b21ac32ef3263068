// Certificates for test servers, made with the `openssl` command (Node can create keys but
// has no API to create X.509 certificates): a self-signed one for the in-process server,
// and a CA with serving certificates signed by it for the real control plane and webhooks.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PEM key and certificate (the certificate is also the CA clients trust). */
export interface SelfSignedCert {
  key: string;
  cert: string;
}

/** A CA and a serving certificate it signed, all PEM. */
export interface CertificateSet {
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

function openssl(args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile('openssl', args, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new Error(
          missing
            ? 'generating a certificate needs the `openssl` command, and it was not found on PATH'
            : `openssl failed: ${String(stderr).trim() || err.message}`,
        ),
      );
    });
  });
}

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'crdgen-tls-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Generates a P-256 self-signed certificate for 127.0.0.1/localhost valid for a day. */
export async function generateSelfSignedCert(): Promise<SelfSignedCert> {
  return inTempDir(async (dir) => {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await openssl([
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=crdgen-testenv',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  });
}

function subjectAltNames(hosts: string[]): string[] {
  return hosts.map((h) => {
    if (/^[0-9.]+$/.test(h) || /^[0-9a-f:]+$/i.test(h)) return `IP:${h}`;
    if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(h)) return `DNS:${h}`;
    throw new Error(`"${h}" is neither an IP address nor a DNS name`);
  });
}

/**
 * Generates a P-256 CA and a serving certificate signed by it for `hosts` (IP addresses and
 * DNS names), both valid for `days` (default 2). Names are checked: only IPs and DNS names.
 */
export async function generateCertificateSet(
  hosts: string[],
  options: { commonName?: string; days?: number } = {},
): Promise<CertificateSet> {
  subjectAltNames(hosts);
  const days = String(options.days ?? 2);
  const ca = await inTempDir(async (dir) => {
    const p = (n: string): string => join(dir, n);
    await openssl([
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.crt'),
      '-days',
      days,
      '-subj',
      '/CN=crdgen-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return { caCert: await readFile(p('ca.crt'), 'utf8'), caKey: await readFile(p('ca.key'), 'utf8') };
  });
  return { ...ca, ...(await signServingCert(ca, hosts, options)) };
}

/** A new P-256 serving certificate for `hosts` signed by the CA of `ca` (a rotation keeps the CA). */
export async function signServingCert(
  ca: { caCert: string; caKey: string },
  hosts: string[],
  options: { commonName?: string; days?: number } = {},
): Promise<{ cert: string; key: string }> {
  const san = subjectAltNames(hosts);
  const days = String(options.days ?? 2);
  return inTempDir(async (dir) => {
    const p = (n: string): string => join(dir, n);
    await writeFile(p('ca.crt'), ca.caCert);
    await writeFile(p('ca.key'), ca.caKey, { mode: 0o600 });
    await openssl([
      'req',
      ...EC_KEY,
      '-keyout',
      p('tls.key'),
      '-out',
      p('tls.csr'),
      '-subj',
      `/CN=${options.commonName ?? 'crdgen-serving'}`,
    ]);
    await writeFile(
      p('ext'),
      `subjectAltName=${san.join(',')}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n`,
    );
    // a random serial: two certificates of one CA never share one
    await openssl([
      'x509',
      '-req',
      '-in',
      p('tls.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-set_serial',
      `0x1${randomBytes(15).toString('hex')}`,
      '-out',
      p('tls.crt'),
      '-days',
      days,
      '-extfile',
      p('ext'),
    ]);
    const [cert, key] = await Promise.all(['tls.crt', 'tls.key'].map((f) => readFile(p(f), 'utf8')));
    return { cert: cert, key: key };
  });
}
