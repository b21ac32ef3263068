// X.509 certificates made with node:crypto alone: the operator's self-signed serving certificate
// (secured metrics without --metrics-cert-dir, as controller-runtime's metrics server makes one),
// and the CA and CA-signed serving certificates of --webhook-cert-mode=self.
// node:crypto parses certificates (X509Certificate) but does not write them, and the operator's
// image has no openssl: the certificate's DER is written here (RFC 5280's few structures an ECDSA
// P-256 serving certificate needs) and signed with crypto.sign.
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** A certificate and its key, PEM. */
export interface CertificateKeyPair {
  cert: string;
  key: string;
}

/** What a certificate says: names and how long it is valid. */
export interface CertificateOptions {
  /** Subject (and, self-signed, issuer) common name. */
  commonName: string;
  /** subjectAltName: DNS names and IP addresses (`127.0.0.1`, `::1`). */
  hosts?: readonly string[];
  /** Valid for this long from `notBefore` (default 365 days); see `notAfter`. */
  validForMs?: number;
  /** Default: an hour ago (clocks differ). */
  notBefore?: Date;
  /** The end of validity; overrides `validForMs`. */
  notAfter?: Date;
  /** A CA certificate (basicConstraints CA, keyCertSign) rather than a serving one. */
  isCA?: boolean;
  /** The issuer: a CA's certificate and key (PEM); default self-signed. */
  issuer?: CertificateKeyPair;
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One DER element: tag, length, contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const seq = (...c: Buffer[]): Buffer => der(0x30, ...c);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const bytes = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) bytes.unshift(0x80 | (v & 0x7f));
    out.push(...bytes);
  }
  return der(0x06, Buffer.from(out));
}

/** A positive INTEGER from unsigned big-endian bytes. */
function uint(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const b = bytes.subarray(i);
  return der(0x02, b[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}

function name(commonName: string): Buffer {
  return seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand `::`, then 8 groups of 16 bits
  const [head, tail = ''] = ip.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/**
 * A new ECDSA P-256 certificate and key, self-signed or signed by `options.issuer`: subject
 * `commonName`, subjectAltName `hosts`, a serving certificate (keyUsage digitalSignature,
 * extKeyUsage serverAuth) or a CA.
 */
export function createCertificate(options: CertificateOptions): CertificateKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const notBefore = options.notBefore ?? new Date(Date.now() - 3_600_000);
  const notAfter = options.notAfter ?? new Date(notBefore.getTime() + (options.validForMs ?? 365 * 24 * 3_600_000));
  if (!(notAfter.getTime() > notBefore.getTime()))
    throw new Error(`a certificate must end after it begins (${notBefore.toISOString()} .. ${notAfter.toISOString()})`);
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  let issuerName = name(options.commonName);
  let signer: KeyObject = privateKey;
  let authorityKeyId = keyId(spki);
  if (options.issuer) {
    const ca = new X509Certificate(options.issuer.cert);
    if (!ca.ca) throw new Error('the issuer is not a CA certificate (basicConstraints CA:TRUE)');
    issuerName = Buffer.from(ca.raw.subarray(...subjectRange(ca.raw)));
    signer = createPrivateKey(options.issuer.key);
    if (!ca.checkPrivateKey(signer)) throw new Error("the issuer's key does not match its certificate");
    authorityKeyId = keyId(ca.publicKey.export({ type: 'spki', format: 'der' }));
  }
  const hosts = options.hosts ?? [];
  const san = seq(
    ...hosts.map((h) => (isIPv4(h) || isIPv6(h) ? der(0x87, ipBytes(h)) : der(0x82, Buffer.from(h, 'ascii')))),
  );
  const extensions = options.isCA
    ? [
        extension('2.5.29.19', true, seq(der(0x01, Buffer.from([0xff])))), // basicConstraints CA:TRUE
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x01, 0x86]))), // keyCertSign, cRLSign, digitalSignature
      ]
    : [
        extension('2.5.29.19', true, seq()), // basicConstraints CA:FALSE
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x07, 0x80]))), // digitalSignature
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage serverAuth
      ];
  if (hosts.length > 0) extensions.push(extension('2.5.29.17', false, san));
  // key identifiers: a client holding several CAs of the same name (a rotation's bundle) finds the issuer by them
  extensions.push(extension('2.5.29.14', false, der(0x04, keyId(spki)))); // subjectKeyIdentifier
  extensions.push(extension('2.5.29.35', false, seq(der(0x80, authorityKeyId)))); // authorityKeyIdentifier
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // version v3
    uint(serial),
    ECDSA_WITH_SHA256,
    issuerName,
    seq(time(notBefore), time(notAfter)),
    name(options.commonName),
    spki,
    der(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, signer);
  const cert = seq(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  return { cert: pem, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A key identifier: the leftmost 160 bits of the SHA-256 of the SubjectPublicKeyInfo (any consistent method serves, RFC 5280 4.2.1.2). */
function keyId(spki: Buffer): Buffer {
  return createHash('sha256').update(spki).digest().subarray(0, 20);
}

/** [start, end) of the subject Name inside a certificate's DER (tbsCertificate's sixth element, after the optional version). */
function subjectRange(certDer: Buffer): [number, number] {
  const read = (at: number): { start: number; body: number; end: number } => {
    let len = certDer[at + 1];
    let body = at + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + certDer[at + 2 + i];
      body += n;
    }
    return { start: at, body, end: body + len };
  };
  const tbs = read(read(0).body);
  let at = tbs.body;
  if (certDer[at] === 0xa0) at = read(at).end; // version
  for (let i = 0; i < 4; i++) at = read(at).end; // serial, signature, issuer, validity
  return [at, read(at).end];
}
