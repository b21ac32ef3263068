// Request bodies: read with a size limit, decoded as JSON or YAML (by Content-Type),
// with the apiserver's 400/413/415 answers for what cannot be read.
import type { IncomingMessage } from 'node:http';
import { goJsonSyntaxError } from './json-syntax.js';
import { ApiError, failure, tooLarge } from './status.js';

/** A JSON body that does not parse: a 400 with Go's syntax error (`syntax` for callers that word it otherwise). */
export class JsonBodyError extends ApiError {
  constructor(readonly syntax: string) {
    super(failure(400, 'BadRequest', `couldn't get version/kind; json parse error: ${syntax}`));
  }
}

/** The apiserver's limit on request bodies (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body; throws 413 past `limit`. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      failed = true;
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

let yamlModule: Promise<typeof import('yaml')> | undefined;

/** Decodes a body by its Content-Type: JSON (and the JSON patch types) or YAML (apply patches, application/yaml). */
export async function decodeBody(buf: Buffer, contentType: string | undefined): Promise<unknown> {
  const ct = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  const text = buf.toString('utf8');
  if (ct === 'application/vnd.kubernetes.protobuf') {
    const { decodeKubeProtobuf } = await import('./protobuf.js');
    return decodeKubeProtobuf(buf);
  }
  if (ct.includes('protobuf') || ct.includes('cbor')) {
    throw new ApiError(
      failure(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      ),
    );
  }
  if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml' || ct === 'text/yaml') {
    yamlModule ??= import('yaml');
    const YAML = await yamlModule;
    try {
      // YAML 1.1, as the apiserver's sigs.k8s.io/yaml (go-yaml v2) reads it: `y`, `on`, `no` are booleans
      const docs = YAML.parseAllDocuments(text, { version: '1.1' });
      const errs = docs.flatMap((d) => d.errors);
      if (errs.length) throw new Error(errs[0].message);
      if (docs.length !== 1) throw new Error(`expected one document, got ${docs.length}`);
      return docs[0].toJSON() as unknown;
    } catch (e) {
      throw new YamlSyntaxError((e as Error).message.split('\n')[0]);
    }
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new JsonBodyError(goJsonSyntaxError(buf) ?? (e as Error).message);
  }
}

/** A YAML body that does not parse (worded by the yaml package, where kube-apiserver quotes go-yaml). */
export class YamlSyntaxError extends ApiError {
  constructor(readonly detail: string) {
    super(failure(400, 'BadRequest', `error converting YAML to JSON: yaml: ${detail}`));
  }
}
