// `npm run builtins:update`: regenerates crdgen/runtime's typed built-in kinds (src/runtime/builtin/)
// from the committed OpenAPI v3 document of the real kube-apiserver (src/cli/builtins.ts says
// which kinds). Removes generated files that are no longer produced; writes nothing else.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_DIR, BUILTIN_SOURCE, builtinFiles } from '../src/cli/builtins.js';
import { isGeneratedContents } from '../src/emit/header.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, BUILTIN_DIR);
const files = builtinFiles(readFileSync(join(root, BUILTIN_SOURCE), 'utf8'));
const wanted = new Set(files.map((f) => f.path));
const walk = (d: string): string[] => {
  let entries: string[];
  try {
    entries = readdirSync(d);
  } catch {
    return [];
  }
  return entries.flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
};
for (const f of walk(dir)) {
  const rel = relative(dir, f).split(sep).join('/');
  if (!wanted.has(rel) && isGeneratedContents(readFileSync(f, 'utf8'))) rmSync(f);
}
for (const f of files) {
  const p = join(dir, ...f.path.split('/'));
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, f.contents);
}
console.log(`wrote ${files.length} files to ${BUILTIN_DIR}`);
