// The fixed header every generated (not user-owned) file starts with, and how the
// writer recognises a file crdgen generated.

import { GENERATED_HASH_HEADER, GENERATED_HEADER, isGeneratedContents } from '../model/generated.js';

export { GENERATED_HASH_HEADER, GENERATED_HEADER, isGeneratedContents };

/**
 * The header block for a generated file: {@link GENERATED_HEADER}, then one
 * `// Source: <file>` line per input (control characters and line breaks in
 * file names are replaced, so a name cannot end the comment), then a blank line.
 * No timestamps: output is reproducible.
 */
export function generatedHeader(sources: readonly string[]): string {
  const lines = [GENERATED_HEADER];
  for (const s of sources) lines.push(`// Source: ${s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, '?')}`);
  return `${lines.join('\n')}\n\n`;
}
