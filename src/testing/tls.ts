// A self-signed certificate for 127.0.0.1/localhost, made with the `openssl` command
// (Node has no API to create X.509 certificates).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PEM key and certificate (the certificate is also the CA clients trust). */
export interface SelfSignedCert {
  key: string;
  cert: string;
}

/** Generates a P-256 self-signed certificate valid for a day; a clear error when openssl is missing. */
export async function generateSelfSignedCert(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), 'crdgen-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await new Promise<void>((resolve, reject) => {
      execFile(
        'openssl',
        [
          'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
          '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=crdgen-testenv',
          '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
          '-addext', 'basicConstraints=critical,CA:TRUE',
        ],
        (err) => {
          if (err) {
            const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
            reject(new Error(missing ? 'https needs the `openssl` command to generate a certificate, and it was not found on PATH' : `openssl failed: ${err.message}`));
          } else resolve();
        },
      );
    });
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
