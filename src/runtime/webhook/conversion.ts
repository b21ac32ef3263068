// apiextensions.k8s.io/v1 ConversionReview and hub-and-spoke conversion (controller-runtime's
// conversion.Hub / Convertible): the storage version is the hub, every other served version
// converts to and from it, so N versions need 2(N−1) functions.
//
// Lossless by construction: when a conversion drops something (a field with no place in the other
// version), what it dropped is kept on the converted object in the annotation
// `conversion.crdgen.io/<version>` — the JSON patch that turns the object converted back into the
// original — and replayed when the object is converted into <version> again, as Kubernetes' own
// conversions keep fields of newer versions in annotations. So spoke → hub → spoke and
// hub → spoke → hub give back what went in, whatever the user's functions drop.
import type { KubeObject } from '../meta/types.js';
import { applyPatchTolerant, diffJson, type JsonPatchOp } from './json-patch.js';

/** The prefix of the annotations that keep what a conversion could not carry. */
export const CONVERSION_ANNOTATION_PREFIX = 'conversion.crdgen.io/';

/** The functions of one spoke version (objects in, objects out; metadata is carried by the framework). */
export interface SpokeConversion {
  /** This version's object (a copy) → the hub's. */
  toHub(spoke: KubeObject): KubeObject;
  /** The hub's object (a copy) → this version's. */
  fromHub(hub: KubeObject): KubeObject;
}

/** The conversions of one kind. */
export interface HubAndSpoke {
  group: string;
  kind: string;
  /** The hub version (the CRD's storage version), e.g. `v1`. */
  hub: string;
  /** Every other served version's functions. */
  spokes: Record<string, SpokeConversion>;
}

/** A conversion that cannot be done (answered as a Failure result, the apiserver's conversion error). */
export class ConversionError extends Error {
  override name = 'ConversionError';
}

function splitApiVersion(apiVersion: unknown): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ConversionError('the object has no apiVersion');
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function versionsOf(c: HubAndSpoke): string[] {
  return [c.hub, ...Object.keys(c.spokes)];
}

/** One step between the hub and a spoke, metadata carried from the input unless the function set it. */
function step(c: HubAndSpoke, obj: KubeObject, from: string, to: string): KubeObject {
  if (from === to) return obj;
  const input = structuredClone(obj);
  const out = from === c.hub ? c.spokes[to].fromHub(input) : c.spokes[from].toHub(input);
  if (typeof out !== 'object' || out === null || Array.isArray(out))
    throw new ConversionError(
      `converting ${c.kind} from ${from} to ${to} returned ${out === null ? 'null' : typeof out}, not an object`,
    );
  const res: KubeObject = { ...out, apiVersion: c.group ? `${c.group}/${to}` : to, kind: c.kind };
  if (res.metadata === undefined && obj.metadata !== undefined) res.metadata = structuredClone(obj.metadata);
  return res;
}

/** Through the hub: from → hub → to. */
function viaHub(c: HubAndSpoke, obj: KubeObject, from: string, to: string): KubeObject {
  if (from === to) return obj;
  const hub = step(c, obj, from, c.hub);
  return step(c, hub, c.hub, to);
}

/** Splits the conversion annotations off an object: the object without them, and theirs by version. */
function takeAnnotations(obj: KubeObject): { rest: KubeObject; saved: Map<string, JsonPatchOp[]> } {
  const rest = structuredClone(obj);
  const saved = new Map<string, JsonPatchOp[]>();
  const ann = rest.metadata?.annotations;
  if (!ann || typeof ann !== 'object') return { rest, saved };
  let removed = false;
  for (const k of Object.keys(ann)) {
    if (!k.startsWith(CONVERSION_ANNOTATION_PREFIX)) continue;
    removed = true;
    const version = k.slice(CONVERSION_ANNOTATION_PREFIX.length);
    const text = ann[k];
    delete ann[k];
    try {
      const ops = JSON.parse(String(text)) as unknown;
      if (Array.isArray(ops)) saved.set(version, ops as JsonPatchOp[]);
    } catch {
      // an annotation edited by hand into something else is dropped, never fatal
    }
  }
  if (removed && Object.keys(ann).length === 0) delete rest.metadata!.annotations;
  return { rest, saved };
}

/** Without apiVersion (the diff is about content). */
function content(o: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, ...rest } = o as KubeObject & Record<string, unknown>;
  return rest;
}

/**
 * Converts `obj` to `desiredApiVersion` through the hub, losslessly (see the file's header).
 * Throws {@link ConversionError} for a version the conversion does not know.
 */
export function convertObject(c: HubAndSpoke, obj: KubeObject, desiredApiVersion: string): KubeObject {
  const from = splitApiVersion(obj.apiVersion);
  const to = splitApiVersion(desiredApiVersion);
  const known = versionsOf(c);
  if (from.group !== c.group) throw new ConversionError(`cannot convert ${obj.apiVersion}: not of group ${c.group}`);
  if (to.group !== c.group)
    throw new ConversionError(`cannot convert to ${desiredApiVersion}: not of group ${c.group}`);
  if (obj.kind !== undefined && obj.kind !== c.kind)
    throw new ConversionError(`cannot convert kind ${String(obj.kind)}: this webhook converts ${c.kind}`);
  for (const v of [from.version, to.version]) {
    if (!known.includes(v))
      throw new ConversionError(`unknown version ${c.group}/${v} of ${c.kind} (known: ${known.join(', ')})`);
  }
  if (from.version === to.version) return { ...structuredClone(obj), kind: c.kind };
  const { rest, saved } = takeAnnotations(obj);
  const converted = viaHub(c, rest, from.version, to.version);
  // what the way back does not give back, kept for the next conversion into `from`
  const back = viaHub(c, takeAnnotations(converted).rest, to.version, from.version);
  const lost = diffJson(content(normalMeta(back)), content(normalMeta(rest))).filter(
    (op) => !op.path.startsWith(`/metadata/annotations/${CONVERSION_ANNOTATION_PREFIX.replace(/\//g, '~1')}`),
  );
  let out = converted;
  // what an earlier conversion out of `to` could not carry, put back
  const replay = saved.get(to.version);
  if (replay?.length) out = { ...applyPatchTolerant(content(out), replay), apiVersion: out.apiVersion };
  out = takeAnnotations(out).rest;
  if (lost.length) {
    out.metadata = { ...(out.metadata ?? {}) };
    out.metadata.annotations = {
      ...(out.metadata.annotations ?? {}),
      [`${CONVERSION_ANNOTATION_PREFIX}${from.version}`]: JSON.stringify(lost),
    };
  }
  return { ...out, apiVersion: desiredApiVersion, kind: c.kind };
}

/** The outcome of {@link roundTrip}: whether `obj` came back unchanged, and the difference when not. */
export interface RoundTripResult {
  ok: boolean;
  /** The version it went through. */
  via: string;
  /** The object after the round trip. */
  back: KubeObject;
  /** JSON patch from the original to what came back (empty when ok). */
  difference: JsonPatchOp[];
}

/**
 * Converts `obj` to `version` and back: lossless conversions give `obj` back exactly (empty
 * `labels` and `annotations` count as absent, as ObjectMeta encodes them).
 */
export function roundTrip(c: HubAndSpoke, obj: KubeObject, version: string): RoundTripResult {
  const there = convertObject(c, obj, c.group ? `${c.group}/${version}` : version);
  const back = convertObject(c, there, String(obj.apiVersion));
  const difference = diffJson(normalMeta(obj), normalMeta(back));
  return { ok: difference.length === 0, via: version, back, difference };
}

/** Empty labels/annotations dropped (ObjectMeta's omitempty). */
function normalMeta(o: KubeObject): KubeObject {
  const m = o.metadata;
  if (!m || typeof m !== 'object') return o;
  const meta = { ...m };
  for (const k of ['labels', 'annotations'] as const) {
    const v = meta[k];
    if (v && typeof v === 'object' && Object.keys(v).length === 0) delete meta[k];
  }
  return { ...o, metadata: meta };
}

/** apiextensions/v1 ConversionReview. */
export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1' | 'apiextensions.k8s.io/v1beta1';
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: KubeObject[] };
  response?: {
    uid: string;
    convertedObjects: KubeObject[];
    result: { status: 'Success' | 'Failure'; message?: string };
  };
}

/** A ConversionReview answer that fails with `message`. */
export function failedConversionReview(uid: string, message: string): ConversionReview {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid, convertedObjects: [], result: { status: 'Failure', message } },
  };
}

/**
 * Answers a ConversionReview with `conversions` (one per kind): every object converted to the
 * desired version, or a Failure result naming the object that could not be (never a throw).
 */
export function answerConversionReview(conversions: readonly HubAndSpoke[], body: unknown): ConversionReview {
  const apiVersion =
    isObj(body) && body.apiVersion === 'apiextensions.k8s.io/v1beta1'
      ? 'apiextensions.k8s.io/v1beta1'
      : 'apiextensions.k8s.io/v1';
  const fail = (uid: string, message: string): ConversionReview => ({
    apiVersion,
    kind: 'ConversionReview',
    response: { uid, convertedObjects: [], result: { status: 'Failure', message } },
  });
  if (!isObj(body))
    return fail('', 'the body is not a JSON object (expected an apiextensions.k8s.io/v1 ConversionReview)');
  if (
    body.kind !== 'ConversionReview' ||
    (body.apiVersion !== 'apiextensions.k8s.io/v1' && body.apiVersion !== 'apiextensions.k8s.io/v1beta1')
  ) {
    return fail(
      '',
      `expected an apiextensions.k8s.io/v1 ConversionReview, got apiVersion ${JSON.stringify(body.apiVersion ?? '')} kind ${JSON.stringify(body.kind ?? '')}`,
    );
  }
  const req = body.request;
  if (!isObj(req)) return fail('', 'the ConversionReview has no request');
  const uid = typeof req.uid === 'string' ? req.uid : '';
  if (!uid) return fail('', 'the ConversionReview request has no uid');
  if (typeof req.desiredAPIVersion !== 'string' || req.desiredAPIVersion === '')
    return fail(uid, 'the ConversionReview request has no desiredAPIVersion');
  if (!Array.isArray(req.objects)) return fail(uid, 'the ConversionReview request has no objects');
  const out: KubeObject[] = [];
  for (const [i, o] of req.objects.entries()) {
    if (!isObj(o)) return fail(uid, `objects[${i}] is not an object`);
    const obj = o as KubeObject;
    let group: string;
    try {
      group = splitApiVersion(obj.apiVersion).group;
    } catch (e) {
      return fail(uid, `objects[${i}]: ${(e as Error).message}`);
    }
    const c = conversions.find((x) => x.group === group && x.kind === obj.kind);
    if (!c) return fail(uid, `objects[${i}]: no conversion for ${String(obj.apiVersion)}, Kind=${String(obj.kind)}`);
    try {
      out.push(convertObject(c, obj, req.desiredAPIVersion));
    } catch (e) {
      const name = obj.metadata?.name
        ? ` ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`
        : '';
      return fail(
        uid,
        `converting ${obj.kind}${name} from ${String(obj.apiVersion)} to ${req.desiredAPIVersion}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  return {
    apiVersion,
    kind: 'ConversionReview',
    response: { uid, convertedObjects: out, result: { status: 'Success' } },
  };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
