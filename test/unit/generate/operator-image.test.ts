// The operator's Dockerfile per base image (image.base of the config): the supported Node.js LTS
// on Alpine by default, distroless nonroot, any image reference; esbuild's --target matches the
// LTS; a base that is not an image reference is an option error and never reaches the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { controller } from '../../../src/generate/controller.js';
import { optionErrors } from '../../../src/generate/check.js';
import {
  IMAGE_BASES,
  IMAGE_REFERENCE,
  isImageBase,
  operatorImage,
  OPERATOR_NODE_MAJOR,
} from '../../../src/generate/operator-image.js';
import { CONFIG_SCHEMA_PATH, loadConfig } from '../../../src/config/load.js';
import type { Model } from '../../../src/model/types.js';
import { ROOT } from '../../golden/support.js';

const model: Model = readCrdInputs([
  {
    file: 'fixtures/databasemanager/crd.yaml',
    content: readFileSync(join(ROOT, 'fixtures/databasemanager/crd.yaml')),
  },
]).model;

function dockerfile(imageBase?: string): string {
  const ctx = createEmitContext({
    sources: model.sources,
    controllers: ['DatabaseManager'],
    ...(imageBase !== undefined ? { imageBase } : {}),
  });
  return controller(model, ctx).find((f) => f.path === 'controllers/databasemanager/Dockerfile')!.contents;
}

/** The Dockerfile's stages: FROM line and instructions, continuation lines joined, comments dropped. */
function stages(text: string): Array<{ from: string; lines: string[] }> {
  const out: Array<{ from: string; lines: string[] }> = [];
  for (const l of text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((x) => x.trim())
    .filter((x) => x !== '' && !x.startsWith('#'))) {
    if (l.startsWith('FROM ')) out.push({ from: l, lines: [] });
    else out.at(-1)!.lines.push(l);
  }
  return out;
}

function entrypoint(text: string): string[] {
  return JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(text)![1]) as string[];
}

const SHA = 'sha256:' + 'ab12'.repeat(16);

test('by default: node:22-alpine in both stages, esbuild --target=node22, node on PATH; no Node 20 left', () => {
  const d = dockerfile();
  assert.equal(OPERATOR_NODE_MAJOR, 22);
  const [build, final] = stages(d);
  assert.equal(build.from, 'FROM node:22-alpine AS build');
  assert.equal(final.from, 'FROM node:22-alpine');
  assert.match(d, / --target=node22 --outfile=\/out\/operator\.mjs /);
  assert.deepEqual(entrypoint(d), ['node', '--max-semi-space-size=8', '--heap-growing-percent=100', 'operator.mjs']);
  assert.doesNotMatch(d, /node:?20|nodejs20/);
  assert.equal(dockerfile('node22-alpine'), d, 'the default by its name');
});

test('distroless: the nonroot Node.js 22 image in the final stage, its node by path, nothing run there', () => {
  const d = dockerfile('distroless');
  const [build, final] = stages(d);
  assert.equal(build.from, 'FROM node:22-alpine AS build', 'npm ci and esbuild need a shell and npm');
  assert.equal(final.from, 'FROM gcr.io/distroless/nodejs22-debian12:nonroot');
  assert.match(d, / --target=node22 /);
  // the Deployment's args replace an image's CMD: the ENTRYPOINT names node and the script
  assert.deepEqual(entrypoint(d), [
    '/nodejs/bin/node',
    '--max-semi-space-size=8',
    '--heap-growing-percent=100',
    'operator.mjs',
  ]);
  assert.equal(final.lines.filter((l) => l.startsWith('RUN ')).length, 0, 'no shell in distroless');
  assert.ok(final.lines.includes('USER 65532:65532'));
  assert.deepEqual(
    final.lines.filter((l) => l.startsWith('COPY')),
    ['COPY --from=build /out/operator.mjs ./'],
  );
  // only the final FROM and the ENTRYPOINT differ from the default, besides the comment naming the base
  const a = dockerfile().split('\n');
  const b = d.split('\n');
  assert.equal(a.length, b.length);
  const changed = a.flatMap((l, i) => (l === b[i] ? [] : [[l, b[i]]]));
  assert.deepEqual(
    changed.map(([l]) => l.split(' ')[0]),
    ['#', 'FROM', 'ENTRYPOINT'],
  );
});

test('an image reference: used as it is; node on PATH, but by path for a distroless Node.js image', () => {
  for (const ref of [
    'node:24-alpine',
    'node:22-bookworm-slim',
    `registry.example.com:5000/team/base-images/node:22.11.0-alpine3.20@${SHA}`,
    `cgr.dev/chainguard/node@${SHA}`,
    'localhost/my_org/node__rt:lts',
  ]) {
    const d = dockerfile(ref);
    assert.equal(stages(d)[1].from, `FROM ${ref}`, ref);
    assert.equal(stages(d)[0].from, 'FROM node:22-alpine AS build', ref);
    assert.equal(entrypoint(d)[0], 'node', ref);
    assert.match(d, / --target=node22 /);
  }
  const d = dockerfile('gcr.io/distroless/nodejs24-debian12:nonroot');
  assert.equal(stages(d)[1].from, 'FROM gcr.io/distroless/nodejs24-debian12:nonroot');
  assert.equal(entrypoint(d)[0], '/nodejs/bin/node');
});

test('a base that is not an image reference is an option error, and the emitter refuses it', () => {
  const bad = [
    'node:22-alpine\nRUN wget http://evil',
    'node:22-alpine AS x',
    'Node:22',
    'node 22',
    '$BASE',
    '${BASE:-node}',
    '"node"',
    'node:22-alpine#',
    'node:',
    '/node:22',
    'node:22@sha256:abc',
    'a'.repeat(256),
  ];
  for (const base of bad) {
    assert.equal(isImageBase(base), false, base);
    const ctx = createEmitContext({ sources: model.sources, controllers: ['DatabaseManager'], imageBase: base });
    assert.deepEqual(optionErrors(model, ctx), [
      `image base ${JSON.stringify(base)} is not node22-alpine, distroless nor an image reference ([registry/]name[:tag][@digest], lowercase name)`,
    ]);
    assert.throws(() => controller(model, ctx), /is not node22-alpine, distroless nor an image reference/);
  }
  assert.deepEqual(
    optionErrors(
      model,
      createEmitContext({ sources: model.sources, controllers: ['DatabaseManager'], imageBase: 'distroless' }),
    ),
    [],
  );
  assert.equal(operatorImage('distroless').base, IMAGE_BASES['distroless']);
});

test("the config schema's image.base pattern is the generator's, and accepts and refuses the same values", () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as {
    properties: { image: { properties: { base: { pattern: string; maxLength: number } } } };
    $defs: { target: { properties: { image: unknown } } };
  };
  const base = schema.properties.image.properties.base;
  assert.equal(base.pattern, IMAGE_REFERENCE.source.replaceAll('\\/', '/'));
  assert.deepEqual(schema.$defs.target.properties.image, schema.properties.image, 'the same in a target');
  const check = new Ajv({ strict: true }).compile({ type: 'string', pattern: base.pattern, maxLength: base.maxLength });
  for (const v of [
    'node22-alpine',
    'distroless',
    'node:24-alpine',
    `ghcr.io/a/b:c@${SHA}`,
    'Node:22',
    'node 22',
    'node:22\nRUN x',
    'a'.repeat(256),
  ])
    assert.equal(check(v), isImageBase(v), v);
});

test("docs/operator.md's config with image.base loads, and its operator's Dockerfile is on distroless", () => {
  const doc = readFileSync(join(ROOT, 'docs', 'operator.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Install it into a cluster'), doc.indexOf('## Tests'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1];
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-image-doc-'));
  try {
    writeFileSync(join(dir, 'crdgen.config.yaml'), yaml);
    const r = loadConfig(join(dir, 'crdgen.config.yaml'), 'crdgen.config.yaml');
    assert.deepEqual(r.diagnostics, []);
    const [target] = r.config!.targets;
    assert.deepEqual(target.controllers, ['DatabaseManager']);
    assert.match(dockerfile(target.image!.base), /^FROM gcr\.io\/distroless\/nodejs22-debian12:nonroot$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
