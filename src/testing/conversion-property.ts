// The round-trip property of a hub-and-spoke conversion, for users' tests: objects drawn by
// fast-check from each version's openAPIV3Schema (every property optional, enums, integer
// bounds, maps, lists, int-or-string, preserved unknown fields) are converted to every other
// version and back, and must come back unchanged. Needs the npm package `fast-check`.
import type { KubeObject } from '../runtime/meta/types.js';
import { roundTrip, type HubAndSpoke, type RoundTripResult } from '../runtime/webhook/conversion.js';
import { jsonText } from './meta.js';

type Rec = Record<string, unknown>;
type FastCheck = typeof import('fast-check');
type Arbitrary<T> = import('fast-check').Arbitrary<T>;

/** Options of {@link checkConversionRoundTrip}. */
export interface RoundTripOptions {
  /** Each served version's openAPIV3Schema (e.g. read from the CRD). */
  schemas: Record<string, unknown>;
  /** Objects per version (default 200). */
  numRuns?: number;
  /** fast-check seed (default: fast-check's random one; printed on failure to replay). */
  seed?: number;
  /** How deep schemas are followed (default 6). */
  maxDepth?: number;
}

/** A failing round trip (thrown as {@link ConversionRoundTripError}). */
export class ConversionRoundTripError extends Error {
  override name = 'ConversionRoundTripError';
  constructor(
    message: string,
    readonly object: KubeObject,
    readonly result: RoundTripResult,
  ) {
    super(message);
  }
}

/**
 * Checks that every object of every version in `schemas` survives a conversion to each other
 * version and back. Throws {@link ConversionRoundTripError} with the smallest object found and
 * the difference (a JSON patch) when one does not.
 */
export async function checkConversionRoundTrip(conversion: HubAndSpoke, options: RoundTripOptions): Promise<void> {
  let fc: FastCheck;
  try {
    fc = (await import('fast-check')).default as unknown as FastCheck;
  } catch {
    throw new Error('checkConversionRoundTrip needs the npm package fast-check (npm install --save-dev fast-check)');
  }
  const versions = Object.keys(options.schemas);
  for (const v of versions) {
    if (v !== conversion.hub && !conversion.spokes[v])
      throw new Error(
        `the conversion of ${conversion.kind} has no version ${v} (it has ${[conversion.hub, ...Object.keys(conversion.spokes)].join(', ')})`,
      );
  }
  for (const from of versions) {
    const objects = objectArbitrary(fc, conversion, from, options.schemas[from], options.maxDepth ?? 6);
    for (const via of versions) {
      if (via === from) continue;
      const details = fc.check(
        fc.property(objects, (obj) => roundTrip(conversion, obj, via).ok),
        { numRuns: options.numRuns ?? 200, ...(options.seed !== undefined ? { seed: options.seed } : {}) },
      );
      if (details.failed && details.counterexample) {
        const obj = details.counterexample[0];
        const result = roundTrip(conversion, obj, via);
        throw new ConversionRoundTripError(
          `${conversion.kind} ${from} → ${via} → ${from} is not lossless (seed ${details.seed}): ${JSON.stringify(result.difference)} for ${JSON.stringify(obj)}`,
          obj,
          result,
        );
      }
      if (details.failed) {
        const thrown = (details as { errorInstance?: unknown }).errorInstance;
        const what = thrown instanceof Error ? String(thrown) : jsonText(thrown ?? 'the property threw');
        throw new Error(`${conversion.kind} ${from} → ${via} → ${from}: ${what} (seed ${details.seed})`);
      }
    }
  }
}

/** Objects of one version: its apiVersion and kind, a name, the schema's spec/status/other fields. */
export function objectArbitrary(
  fc: FastCheck,
  conversion: HubAndSpoke,
  version: string,
  schema: unknown,
  maxDepth = 6,
): Arbitrary<KubeObject> {
  const root = isRec(schema) ? schema : {};
  const props = isRec(root.properties) ? root.properties : {};
  const fields: Record<string, Arbitrary<unknown>> = {};
  for (const [k, s] of Object.entries(props)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    fields[k] = valueArbitrary(fc, s, 1, maxDepth);
  }
  const meta = fc.record(
    {
      labels: fc.dictionary(fc.constantFrom('app', 'tier', 'team'), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
      annotations: fc.dictionary(fc.constantFrom('note', 'owner'), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(fc.record(fields, { requiredKeys: [] }), meta).map(([body, m]) => ({
    apiVersion: conversion.group ? `${conversion.group}/${version}` : version,
    kind: conversion.kind,
    metadata: { name: 'sample', ...m },
    ...body,
  }));
}

function valueArbitrary(fc: FastCheck, schema: unknown, depth: number, maxDepth: number): Arbitrary<unknown> {
  const s = isRec(schema) ? schema : {};
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...(s.enum as unknown[]));
  if (s['x-kubernetes-int-or-string'] === true)
    return fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom('10%', '50%', 'http'));
  const small = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.boolean());
  if (depth > maxDepth) return small;
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return fc.constantFrom('2026-01-02T03:04:05Z', '1999-12-31T23:59:59Z');
      return fc.string({ maxLength: typeof s.maxLength === 'number' ? Math.min(s.maxLength, 8) : 8 });
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : -1000;
      const max = typeof s.maximum === 'number' ? s.maximum : 1000;
      return fc.integer({
        min: Math.max(min, Number.MIN_SAFE_INTEGER),
        max: Math.max(Math.min(max, Number.MAX_SAFE_INTEGER), min),
      });
    }
    case 'number':
      return fc
        .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
        .map((n) => (Object.is(n, -0) ? 0 : n));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueArbitrary(fc, s.items, depth + 1, maxDepth), { maxLength: 3 });
    case 'object':
    default: {
      if (isRec(s.properties) && Object.keys(s.properties).length) {
        const fields: Record<string, Arbitrary<unknown>> = {};
        for (const [k, p] of Object.entries(s.properties)) fields[k] = valueArbitrary(fc, p, depth + 1, maxDepth);
        return fc.record(fields, { requiredKeys: [] });
      }
      if (isRec(s.additionalProperties))
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 4 }),
          valueArbitrary(fc, s.additionalProperties, depth + 1, maxDepth),
          { maxKeys: 2 },
        );
      if (s['x-kubernetes-preserve-unknown-fields'] === true || s.type === undefined)
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), small, { maxKeys: 2 });
      return fc.constant({});
    }
  }
}

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
