// Every emitter writes code through the one code builder (ARCHITECTURE.md, "code builder"):
// imports from ImportTracker, name-dependent layout through atColumn/renderCode and the helpers
// of src/generate/layout.ts; and the checker catches each way of going around it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeBuilderViolations, layoutHelpers, templateImportLines } from './code-builder.js';

const repo = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** `dir`'s files ending with `ext`, recursively, as repository paths → text. */
function read(dir: string, ext: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(join(repo, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) for (const [k, v] of read(p, ext)) out.set(k, v);
    else if (e.name.endsWith(ext)) out.set(p, readFileSync(join(repo, p), 'utf8'));
  }
  return out;
}

const emitters = read('src/generate', '.ts');
const helpers = layoutHelpers(emitters);

test('the checker sees the emitters and their layout helpers', () => {
  assert.ok(emitters.size > 20, `${emitters.size} files`);
  for (const h of ['callLine', 'signatureLine', 'memberLine', 'typeArgsLine', 'propertyLine', 'assignLine'])
    assert.ok(helpers.has(h), `${h} is a layout helper`);
  assert.ok(helpers.has('huggedCall') && helpers.has('typedResourceLine'), 'emitters’ own helpers are found too');
});

test('no emitter passes a column number to a layout helper, keeps a print width, or writes import lines', () => {
  assert.deepEqual(
    codeBuilderViolations(emitters, helpers).map((v) => `${v.file}:${v.line}: ${v.message}`),
    [],
  );
});

test('templates and starters leave the import lines to {{imports}}', () => {
  const templates = new Map([...read('templates', '.hbs'), ...read('starters', '.hbs')]);
  assert.ok(templates.size > 20, `${templates.size} templates`);
  assert.deepEqual(
    templateImportLines(templates).map((v) => `${v.file}:${v.line}: ${v.message}`),
    [],
  );
});

test('one signatureLine, one print width: defined in src/generate/layout.ts and doc.ts only', () => {
  const all = read('src', '.ts');
  const defines = (re: RegExp) => [...all].filter(([, text]) => re.test(text)).map(([f]) => f);
  assert.deepEqual(defines(/\bfunction signatureLine\b/), ['src/generate/layout.ts']);
  assert.deepEqual(defines(/\bconst \w*WIDTH\w* = \d+/), ['src/generate/doc.ts']);
});

test('each way around the code builder is caught, at its line', () => {
  const bad = new Map([
    [
      'src/generate/bad.ts',
      [
        "import { callLine, importDecl } from './layout.js';",
        "const a = callLine(6, 'f', ['x'], ';');",
        "const b = importDecl(['X'], '\"./x.js\"');",
        'const WIDTH = 80;',
        'const c = `import { X } from "./x.js";`;',
        "const d = imports.declarations((s) => s.join(), () => '');",
        "const e = atColumn((w) => callLine(w, 'f', ['x'], ';'));",
        "const f = callLine(indent + 2, 'f', ['x'], ';');",
      ].join('\n'),
    ],
  ]);
  assert.deepEqual(
    codeBuilderViolations(bad, helpers).map((v) => v.line),
    [2, 3, 4, 5, 6],
  );
  assert.deepEqual(
    templateImportLines(new Map([['templates/x/y.hbs', '{{header}}\nimport { a } from "b";\n']])).map((v) => v.line),
    [2],
  );
});
