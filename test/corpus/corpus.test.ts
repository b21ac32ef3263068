// The corpus: every real-world CRD in ../shared/corpus/crds generates without
// errors, and all of the output compiles with `tsc --strict` as one program.
// Each file is generated on its own (several files define the same kind).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { CORPUS, writeTree, yamlFiles } from '../golden/support.js';
import { tscStrict } from '../compile/tsc.js';

test('corpus CRDs generate without errors and the output compiles', async () => {
  assert.ok(existsSync(CORPUS), `corpus not found at ${CORPUS} (CI puts shared/ beside the clone)`);
  const files = yamlFiles(CORPUS);
  assert.ok(files.length >= 30, `found ${files.length} corpus files`);
  const out = mkdtempSync(join(tmpdir(), 'crdgen-corpus-'));
  try {
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    let generated = 0;
    let skipped = 0;
    for (const f of files) {
      const rel = relative(CORPUS, f).split(sep).join('/');
      const r = readCrdInputs([{ file: rel, content: readFileSync(f), fromDirectory: true }]);
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      assert.deepEqual(errors, [], `errors in ${rel}`);
      if (r.model.groups.length === 0) {
        // Not a CRD (sample-controller's example-foo.yaml): skipped with a warning, as the reader does.
        assert.ok(
          r.diagnostics.some((d) => d.code === 'CRD002'),
          `${rel} produced nothing and no CRD002 warning`,
        );
        skipped++;
        continue;
      }
      const gen = runEmitters(r.model, createEmitContext({ sources: r.model.sources }));
      assert.ok(gen.length >= 3, `${rel} generated ${gen.length} files`);
      writeTree(join(out, rel.replace(/\.ya?ml$/, '')), gen);
      generated++;
    }
    assert.equal(skipped, 1, 'only example-foo.yaml is not a CRD');
    assert.equal(generated, files.length - 1);
    const r = await tscStrict([out], 'nodenext');
    assert.equal(r.output, '');
    assert.equal(r.status, 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
