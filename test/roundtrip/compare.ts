// What must survive a round trip between inputs: the model without source positions, raw
// schemas (the input's own JSON) and the list of source files.
import type { Model } from '../../src/model/types.js';

/** A plain-JSON copy of the model without `source`, `rawSchema`, `precompiledSchema` (derived from rawSchema) and `sources`. */
export function comparable(model: Model): unknown {
  const m = JSON.parse(
    JSON.stringify(model, (k, v: unknown) => (k === 'source' || k === 'rawSchema' || k === 'precompiledSchema' ? undefined : v)),
  ) as Model;
  m.sources = [];
  return m;
}
