// Generated code is already in prettier's default style. Every generated TypeScript
// file of every fixture case and of every corpus CRD — all generators, a controller for every
// kind — is unchanged by `prettier.format` with its default options; so is the CRD YAML the crd
// emitter writes for the fixtures (three corpus CRDs hold block scalars prettier rewrites, so
// corpus YAML is not asserted); so is every file generated from the Kubernetes OpenAPI document.
// Files with identical contents are formatted once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as prettier from 'prettier';
import { corpusFiles, fixtureFiles, kubernetesFiles, type CheckedFile } from './support.js';

/** The first lines where `a` and `b` differ, numbered, for a failure message. */
function firstDifference(a: string, b: string, context = 3): string {
  const al = a.split('\n');
  const bl = b.split('\n');
  let i = 0;
  while (i < al.length && i < bl.length && al[i] === bl[i]) i++;
  const out: string[] = [];
  for (let j = Math.max(0, i - context); j < i + context; j++) {
    if (j < i) out.push(`  ${j + 1}| ${al[j]}`);
    else {
      if (j < al.length) out.push(`- ${j + 1}| ${al[j]}`);
      if (j < bl.length) out.push(`+ ${j + 1}| ${bl[j]}`);
    }
  }
  return out.join('\n');
}

/** Formats each checked file (each distinct contents once); returns the failures as messages. */
async function unstable(files: readonly CheckedFile[]): Promise<string[]> {
  const failures: string[] = [];
  const seen = new Set<string>();
  for (const { origin, file } of files) {
    const key = `${file.path.slice(file.path.lastIndexOf('.'))}\0${file.contents}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const formatted = await prettier.format(file.contents, { filepath: file.path });
    if (formatted !== file.contents) {
      failures.push(
        `${origin}: ${file.path} changes under prettier (- generated, + prettier):\n${firstDifference(file.contents, formatted)}`,
      );
    }
  }
  return failures;
}

const isTs = (f: CheckedFile): boolean => f.file.path.endsWith('.ts');
const isCrdYaml = (f: CheckedFile): boolean => /(^|\/)config\/crd(\.yaml|\/)/.test(f.file.path);

test('fixture output is unchanged by prettier (default options)', async () => {
  const files = fixtureFiles().filter((f) => isTs(f) || isCrdYaml(f));
  assert.ok(files.length > 50, `only ${files.length} fixture files`);
  assert.ok(files.some(isCrdYaml), 'the fixtures include CRD YAML');
  const failures = await unstable(files);
  console.log(`prettier-stable: ${files.length} fixture files checked, ${failures.length} unstable`);
  assert.deepEqual(failures, []);
});

test('corpus output (all generators, a controller per kind) is unchanged by prettier', async () => {
  const files = corpusFiles().filter(isTs);
  assert.ok(files.length > 500, `only ${files.length} corpus files`);
  const failures = await unstable(files);
  console.log(`prettier-stable: ${files.length} corpus files checked, ${failures.length} unstable`);
  assert.deepEqual(failures, []);
});

test('Kubernetes OpenAPI output (every default generator) is unchanged by prettier', async () => {
  const files = kubernetesFiles().filter(isTs);
  assert.ok(files.length > 200, `only ${files.length} files`);
  const failures = await unstable(files);
  console.log(`prettier-stable: ${files.length} Kubernetes files checked, ${failures.length} unstable`);
  assert.deepEqual(failures, []);
});
