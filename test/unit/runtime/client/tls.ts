// Throwaway PKI for TLS tests: a CA, a server certificate and a client certificate,
// made with openssl (EC P-256, fast) in a temp folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Paths and PEM contents of the generated files. */
export interface Pki {
  dir: string;
  caFile: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  /** A server certificate valid only for DNS name api.local (no IP SAN). */
  namedCert: string;
  namedKey: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientCert: string;
  clientKey: string;
  /** A second, unrelated CA. */
  otherCa: string;
  cleanup(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function leaf(dir: string, name: string, subject: string, ext: string): void {
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ],
    dir,
  );
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

/** Generates the PKI; call cleanup() when done. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-pki-'));
  const ca = (name: string) =>
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
      ],
      dir,
    );
  ca('ca');
  ca('other-ca');
  leaf(dir, 'server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf(dir, 'named', '/CN=api.local', 'subjectAltName=DNS:api.local\nextendedKeyUsage=serverAuth\n');
  leaf(dir, 'client', '/CN=alice/O=devs', 'extendedKeyUsage=clientAuth\n');
  const r = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    ca: r('ca.crt'),
    serverCert: r('server.crt'),
    serverKey: r('server.key'),
    namedCert: r('named.crt'),
    namedKey: r('named.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    clientCert: r('client.crt'),
    clientKey: r('client.key'),
    otherCa: r('other-ca.crt'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
