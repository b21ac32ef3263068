// What differs between the versions of DatabaseManager (coolops.cn); v1, the storage version, is
// the hub. crdgen wrote this file once and never overwrites it: it is yours. Before each
// function runs, the generated conversion (conversion.generated.ts) has copied into the target
// every field with the same path and shape; set the rest (a renamed field, a new default).
// Whatever no function carries is kept in an annotation and restored on the way back, so a
// round trip is lossless either way (conversion.test.ts checks it).
import type { DatabaseManager as DatabaseManagerV1 } from "../../apis/coolops.cn/v1/types.js";
import type { DatabaseManager as DatabaseManagerV1alpha1 } from "../../apis/coolops.cn/v1alpha1/types.js";

/** v1alpha1 → v1 (the hub): v1alpha1's `dbtype` is v1's `engine`. */
export function v1alpha1ToV1(
  v1alpha1: DatabaseManagerV1alpha1,
  v1: DatabaseManagerV1,
): void {
  const dbtype = v1alpha1.spec?.dbtype;
  if (dbtype !== undefined) v1.spec = { ...v1.spec, engine: dbtype };
}

/**
 * v1 (the hub) → v1alpha1: `engine` is `dbtype`; `version` has no place in v1alpha1 (the runtime
 * keeps it in the conversion.crdgen.io/v1 annotation, so it is back when the object is read as v1).
 */
export function v1ToV1alpha1(
  v1: DatabaseManagerV1,
  v1alpha1: DatabaseManagerV1alpha1,
): void {
  const engine = v1.spec?.engine;
  if (engine !== undefined)
    v1alpha1.spec = { ...v1alpha1.spec, dbtype: engine };
}
