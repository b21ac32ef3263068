// Determinism: the same API gives byte-identical output whatever the order of the
// inputs on the command line, the order files were created in (file-system order),
// the order of documents inside a multi-document file, and the output folder.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, readTree, ROOT } from '../golden/support.js';
import { run } from '../cli/support.js';

const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'crds');
const tmp = mkdtempSync(join(tmpdir(), 'crdgen-determinism-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** name in the project → source file */
const INPUTS: Record<string, string> = {
  'dm.yaml': join(FIXTURES, 'databasemanager', 'crd.yaml'),
  'kitchensink.yaml': join(FIXTURES, 'kitchensink', 'crds.yaml'),
  'v1beta1.yaml': join(FIXTURES, 'v1beta1', 'crd.yaml'),
  'gc.yaml': join(FIXTURES, 'gatewayclass', 'gateway.networking.k8s.io_gatewayclasses.yaml'),
  'corpus/certificates.yaml': join(CORPUS, 'cert-manager', 'cert-manager.io_certificates.yaml'),
  'corpus/servicemonitors.yaml': join(CORPUS, 'prometheus-operator', 'monitoring.coreos.com_servicemonitors.yaml'),
  'corpus/helmreleases.yaml': join(CORPUS, 'flux', 'helm.toolkit.fluxcd.io_helmreleases.yaml'),
  'corpus/scaledobjects.yaml': join(CORPUS, 'keda', 'keda.sh_scaledobjects.yaml'),
};

/** A seeded shuffle (deterministic test, different orders). */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const a = [...items];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** Multi-document YAML with its documents in another order (each document's text kept). */
function reorderDocuments(text: string, seed: number): string {
  const docs = text.split(/^---\n/m).filter((d) => d.trim() !== '');
  assert.equal(docs.length, 3);
  return shuffle(docs, seed)
    .map((d) => `---\n${d}`)
    .join('');
}

function project(name: string, seed: number): string {
  const dir = join(tmp, name);
  for (const rel of shuffle(Object.keys(INPUTS), seed)) {
    mkdirSync(join(dir, 'crds', 'corpus'), { recursive: true });
    let text = readFileSync(INPUTS[rel], 'utf8');
    if (rel === 'kitchensink.yaml') text = reorderDocuments(text, seed);
    writeFileSync(join(dir, 'crds', rel), text);
  }
  return dir;
}

test('two runs in different folders with shuffled inputs give byte-identical trees, \\n line endings only', async () => {
  assert.ok(existsSync(CORPUS), `corpus not found at ${CORPUS} (CI puts shared/ beside the clone)`);
  const a = project('first', 1);
  const b = project('second-run', 7);
  const argsA = shuffle(
    Object.keys(INPUTS).map((r) => `crds/${r}`),
    3,
  );
  const argsB = shuffle(
    Object.keys(INPUTS).map((r) => `crds/${r}`),
    11,
  );
  assert.notDeepEqual(argsA, argsB);
  const flags = [
    '--out',
    'gen',
    '--generators',
    'types,deepcopy,register,clientset,fake,listers,informers,applyconfig,controller,crd',
    '--controller',
    'DatabaseManager',
  ];
  const ra = await run(['generate', ...argsA, ...flags], a);
  assert.equal(ra.code, 0, ra.stderr);
  const topLevel = argsB.filter((p) => !p.startsWith('crds/corpus/'));
  const rb = await run(['generate', 'crds/corpus', ...topLevel, ...flags], b); // a folder for the corpus files: file-system order
  assert.equal(rb.code, 0, rb.stderr);
  const ta = readTree(join(a, 'gen'));
  const tb = readTree(join(b, 'gen'));
  assert.ok(ta.size > 50, `${ta.size} files`);
  assert.deepEqual([...ta.keys()], [...tb.keys()]);
  for (const [p, text] of ta) {
    assert.equal(tb.get(p), text, p);
    assert.ok(!text.includes('\r'), `${p} has \\r`);
    assert.ok(text.endsWith('\n'), `${p} ends without a newline`);
  }
  // and once more in the first folder: nothing to change
  assert.equal((await run(['verify', ...argsB, ...flags], a)).code, 0);
});
