// The admission hooks of the DatabaseManager operator: what its defaulting and validating webhooks do
// beyond the CRD's schema. crdgen wrote this file once and never overwrites it: it is yours.
// webhooks.ts (regenerated) serves them on /mutate-coolops-cn-v1-databasemanager and
// /validate-coolops-cn-v1-databasemanager, after the schema's own defaults and validation
// (apis/coolops.cn/v1/validation.ts). Objects of other versions arrive converted to v1.
import type { AdmissionOperation, ValidationOutcome } from "crdgen/runtime";
import type { DatabaseManager } from "../../apis/coolops.cn/v1/types.js";
import { DATABASES } from "./reconcile.js";

/**
 * Sets `spec.version` to the engine's default version (the tag of the image reconcile.ts runs)
 * when a DatabaseManager is created or updated without one.
 */
export function defaultDatabaseManager(databaseManager: DatabaseManager): void {
  const spec = databaseManager.spec;
  if (spec?.engine === undefined || spec.version !== undefined) return;
  const db = Object.hasOwn(DATABASES, spec.engine)
    ? DATABASES[spec.engine]
    : undefined;
  if (db) spec.version = db.defaultVersion;
}

/**
 * Refuses to change `spec.engine` of an existing DatabaseManager: a database cannot change engine
 * in place (its data is in the old engine's format), so the user creates a new one.
 */
export function validateDatabaseManager(
  databaseManager: DatabaseManager,
  old: DatabaseManager | undefined,
  operation: AdmissionOperation,
): ValidationOutcome {
  if (operation !== "UPDATE") return {};
  const before = old?.spec?.engine;
  const after = databaseManager.spec?.engine;
  if (before === undefined || before === after) return {};
  const name = databaseManager.metadata?.name ?? "";
  return {
    errors: [
      {
        reason: "FieldValueForbidden",
        field: "spec.engine",
        message: `Forbidden: a database cannot change engine in place (${before} to ${after ?? "none"}); create a new DatabaseManager with engine ${after ?? "…"} and move the data, then delete ${name}`,
      },
    ],
  };
}
