// Output layout helpers shared by emitters: where a group/version's files go.

import { isSafePathSegment } from '../model/naming.js';

/**
 * The folder of a group: its name, or `core` for the legacy core group (`''`, the group of
 * `v1` Pods and Services, read from an OpenAPI document), as k8s.io/api names its package.
 * No CRD group can be `core` (a CRD group has a dot).
 */
export function groupFolder(group: string): string {
  return group === '' ? 'core' : group;
}

/**
 * `apis/<group>/<version>/<file>` (`apis/core/v1/…` for the core group); group and version must
 * be safe path segments (readers validate them; this re-checks so an emitter can never escape `--out`).
 */
export function apiFilePath(group: string, version: string, file: string): string {
  const folder = groupFolder(group);
  for (const s of [folder, version, file]) {
    if (!isSafePathSegment(s)) throw new Error(`unsafe path segment ${JSON.stringify(s)}`);
  }
  return `apis/${folder}/${version}/${file}`;
}
