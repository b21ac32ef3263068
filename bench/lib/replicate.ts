// The corpus at scale: the API set replicated k times, copy i > 0 under renamed groups (the first
// DNS label gets `-r<i>`: `cert-manager.io` → `cert-manager-r3.io`, so every copy's groups keep
// names of their own in generated code), as one folder per copy. Only the lines that name a
// group change (`group: <g>` and `name: <plural>.<g>`); each file written is parsed back and
// checked: every CRD's group renamed, its name `<plural>.<group>`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadAll } from 'js-yaml';

/** The group of copy `i` (copy 0 is the original). */
export function renamedGroup(group: string, i: number): string {
  if (i === 0) return group;
  const [first, ...rest] = group.split('.');
  return [`${first}-r${i}`, ...rest].join('.');
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface CrdDoc {
  spec?: { group?: string; names?: { plural?: string } };
  metadata?: { name?: string };
  kind?: string;
}

function crds(text: string): CrdDoc[] {
  return (loadAll(text) as CrdDoc[]).filter((d) => d?.kind === 'CustomResourceDefinition');
}

/**
 * `text` (one corpus file) with its groups renamed for copy `i` ({@link renamedGroup}), or by
 * `rename`; throws when a CRD was not renamed.
 */
export function renameGroups(text: string, i: number | ((group: string) => string), file: string): string {
  if (i === 0) return text;
  const rename = typeof i === 'number' ? (g: string) => renamedGroup(g, i) : i;
  const docs = crds(text);
  let out = text;
  for (const g of new Set(docs.map((d) => d.spec?.group ?? ''))) {
    const q = `['"]?`;
    out = out
      .replace(new RegExp(`^(\\s*group: )${q}${escape(g)}${q}\\s*$`, 'gm'), `$1${rename(g)}`)
      .replace(new RegExp(`^(\\s*name: )${q}([a-z0-9-]+)\\.${escape(g)}${q}\\s*$`, 'gm'), `$1$2.${rename(g)}`);
  }
  const after = crds(out);
  docs.forEach((d, k) => {
    const a = after[k];
    const want = rename(d.spec?.group ?? '');
    if (a.spec?.group !== want || a.metadata?.name !== `${a.spec?.names?.plural}.${want}`)
      throw new Error(`${file}: CRD ${d.metadata?.name} was not renamed`);
  });
  return out;
}

/**
 * Writes `k` copies of `files` under `dir` (`dir/r<i>/<corpus folder>/<file>`) and returns the
 * written paths, copy by copy in the corpus's order.
 */
export function replicate(files: readonly string[], k: number, dir: string): string[] {
  const out: string[] = [];
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  for (let i = 0; i < k; i++) {
    files.forEach((f, n) => {
      const p = join(dir, `r${i}`, basename(dirname(f)), basename(f));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, renameGroups(texts[n], i, f));
      out.push(p);
    });
  }
  return out;
}

/**
 * Changes one CRD the way a user edits one: the first `description:` line of `file` gets a
 * sentence more (`round` makes each edit differ from the last). Returns the new text.
 */
export function editOne(file: string, round: number): string {
  const text = readFileSync(file, 'utf8');
  // a plain one-line value: a sentence appended stays one plain scalar
  const line = /^(\s*description: )([A-Za-z][^\n#:'"]*)$/m;
  if (!line.test(text)) throw new Error(`${file} has no plain one-line description to edit`);
  const edited = text.replace(line, (_m, pre: string, rest: string) => `${pre}${rest.trimEnd()} Edited ${round}.`);
  writeFileSync(file, edited);
  return edited;
}
