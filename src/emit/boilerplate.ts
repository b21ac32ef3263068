// The user's --header-file boilerplate (a licence, as Go's hack/boilerplate.go.txt):
// placed above the generated header of every generated TypeScript file.

import type { GeneratedFile } from './file.js';
import { GENERATED_HEADER, isGeneratedContents } from './header.js';

/** Thrown when the boilerplate is not only comments (it would hide the generated header). */
export class BoilerplateError extends Error {
  override name = 'BoilerplateError';
}

/**
 * `files` with `boilerplate` (trailing blank lines trimmed, `\r\n` → `\n`) and one
 * blank line above the generated header of each file that starts with
 * {@link GENERATED_HEADER} (TypeScript). User-owned files and `#`-comment files
 * (YAML, Dockerfile) are unchanged. The boilerplate must consist of `//` or
 * `/* *\/` comments, so the writer still recognises the files as generated.
 */
export function applyBoilerplate(files: readonly GeneratedFile[], boilerplate: string): GeneratedFile[] {
  const text = boilerplate.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  if (text === '') return [...files];
  if (!isGeneratedContents(`${text}\n\n${GENERATED_HEADER}\n`) || /^\s*#/m.test(text)) {
    throw new BoilerplateError('the header file must contain only // or /* */ comments (e.g. a licence)');
  }
  return files.map((f) =>
    f.userOwned || !f.contents.startsWith(GENERATED_HEADER) ? f : { ...f, contents: `${text}\n\n${f.contents}` },
  );
}
