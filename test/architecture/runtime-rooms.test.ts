// The rooms inside the runtime (test/architecture/rules.ts RUNTIME_ROOMS): who imports a room,
// and what it must not import, hold for every import of src/runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf } from './import-graph.js';
import { RUNTIME_ROOMS } from './rules.js';

const repo = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(repo, dir)).sort()) {
    const p = `${dir}/${e}`;
    if (statSync(join(repo, p)).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|tsx|mts)$/.test(e)) out.push(p);
  }
  return out;
}

const exists = (p: string): boolean => {
  try {
    return statSync(join(repo, ...p.split('/'))).isFile();
  } catch {
    return false;
  }
};
const edges = sources('src/runtime').flatMap((f) => importsOf(f, readFileSync(join(repo, f), 'utf8'), exists));

for (const room of RUNTIME_ROOMS) {
  test(`runtime room ${room.name}: imported only by its users, importing nothing above it`, () => {
    assert.ok(
      edges.some((e) => e.target?.startsWith(room.path)),
      `the room ${room.path} is imported somewhere (the rule is live)`,
    );
    const wrong = edges
      .filter((e) => e.target?.startsWith(room.path) && !room.importedBy.some((p) => e.from.startsWith(p)))
      .map((e) => `${e.from} imports ${e.target}`);
    assert.deepEqual(wrong, [], `${room.why}: only ${room.importedBy.join(', ')} may import it`);
    const up = edges
      .filter((e) => e.from.startsWith(room.path) && room.mustNotImport.some((p) => e.target?.startsWith(p)))
      .map((e) => `${e.from} imports ${e.target}`);
    assert.deepEqual(up, [], room.why);
  });
}
