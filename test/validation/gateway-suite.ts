// The Gateway API validation suite (corpus/validation/gateway-api) shared by the tests that run it:
// paths, YAML loading, and EXPECTED.md's table of expected error substrings.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The Gateway API CRDs (standard channel, same commit as the examples). */
export const CRDS = '/work/shared/corpus/crds/gateway-api';
/** The examples: valid/** and invalid/**, with EXPECTED.md. */
export const SUITE = '/work/shared/corpus/validation/gateway-api';

/** Every non-empty document of a YAML file. */
export function loadYaml(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Record<string, unknown> | null)
    .filter((x): x is Record<string, unknown> => x !== null);
}

/** The `.yaml` files under `dir`, recursively, sorted. */
export function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
    )
    .sort();
}

/** The backticked spans of a cell that are not inside a `[test: …]`/`[form: …]` source tag. */
export function expectedSpans(cell: string): string[] {
  const out: string[] = [];
  let tagDepth = 0;
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i];
    if (ch === '`') {
      const end = cell.indexOf('`', i + 1);
      if (tagDepth === 0) out.push(cell.slice(i + 1, end).replace(/\\\|/g, '|'));
      i = end;
    } else if (ch === '[') tagDepth++;
    else if (ch === ']') tagDepth--;
  }
  return out;
}

/** EXPECTED.md's table: file → the expected substrings of its last column. */
export function expectations(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let previous: string[] = [];
  for (const line of readFileSync(join(SUITE, 'EXPECTED.md'), 'utf8').split('\n')) {
    if (!line.startsWith('| invalid/')) continue;
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const last = cells[cells.length - 2];
    let subs = expectedSpans(last);
    if (subs.length === 0 && last.includes('same message as the row above')) subs = previous;
    out.set(cells[1], subs);
    previous = subs;
  }
  return out;
}
