// Output layout helpers shared by emitters: where a group/version's files go.

import { isSafePathSegment } from '../model/naming.js';

/**
 * `apis/<group>/<version>/<file>`; group and version must be safe path segments
 * (readers validate them; this re-checks so an emitter can never escape `--out`).
 */
export function apiFilePath(group: string, version: string, file: string): string {
  for (const s of [group, version, file]) {
    if (!isSafePathSegment(s)) throw new Error(`unsafe path segment ${JSON.stringify(s)}`);
  }
  return `apis/${group}/${version}/${file}`;
}
