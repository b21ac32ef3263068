// What must survive a round trip between inputs: the whole model but its source positions and
// the list of source files (the schema trees with their keywords, the CRD facts, everything else).
import type { Model } from '../../src/model/types.js';

/** A plain-JSON copy of the model without `source` and `sources`. */
export function comparable(model: Model): unknown {
  const m = JSON.parse(JSON.stringify(model, (k, v: unknown) => (k === 'source' ? undefined : v))) as Model;
  m.sources = [];
  return m;
}
