// What the writer writes: one output file, and the rule for a path it may write to.
// Emitters (src/generate/) produce these; the writer (writer.ts), the formatter and the
// boilerplate step consume them. They live on the writer's side so that src/emit imports
// nothing of src/generate (test/architecture/imports.test.ts).

import { isSafePathSegment } from '../model/naming.js';

/** One output file, relative to `--out`. */
export interface GeneratedFile {
  /**
   * POSIX path relative to the output folder, e.g. `apis/coolops.cn/v1alpha1/types.ts`.
   * No leading `/`, no `.`/`..` segments, no backslashes ({@link isSafeOutputPath}).
   */
  path: string;
  /** Full file contents; generated files start with `generatedHeader`'s text (header.ts). */
  contents: string;
  /**
   * A file meant for the user to edit (e.g. a controller's business logic): the
   * writer creates it when missing and never overwrites or deletes it afterwards.
   * Such files carry no "DO NOT EDIT" header.
   */
  userOwned?: boolean;
}

/**
 * True for a clean relative POSIX output path: segments all pass
 * `isSafePathSegment` (src/model/naming.ts), no leading `/`, no empty segments.
 */
export function isSafeOutputPath(p: string): boolean {
  if (p.length === 0 || p.startsWith('/')) return false;
  return p.split('/').every(isSafePathSegment);
}
