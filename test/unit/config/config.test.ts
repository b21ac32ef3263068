import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { findConfigFile } from '../../../src/config/discover.js';
import { CONFIG_SCHEMA_PATH, didYouMean, loadConfig } from '../../../src/config/load.js';
import { formatDiagnostics } from '../../../src/diagnostics/format.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-config-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function write(files: Record<string, string>): string {
  const dir = join(tmp, `c${n++}`);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}
const load = (dir: string, name: string) => loadConfig(join(dir, name), name);
const shown = (r: ReturnType<typeof loadConfig>) => formatDiagnostics(r.diagnostics);

test('the published schema is a valid JSON Schema (strict ajv compiles it)', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as { title: string };
  assert.equal(schema.title, 'crdgen configuration');
  new Ajv({ strict: true, allowUnionTypes: true }).compile(schema);
});

test('discovery walks up; crdgen.config.* wins over package.json in one folder; package.json without "crdgen" is passed over', () => {
  const dir = write({
    'crdgen.config.yml': 'inputs: a\nout: b\n',
    'pkg/package.json': '{"name":"x","crdgen":{"inputs":"c","out":"d"}}',
    'pkg/deep/er/package.json': '{"name":"y"}',
    'both/package.json': '{"crdgen":{}}',
    'both/crdgen.config.json': '{}',
  });
  assert.equal(findConfigFile(join(dir, 'pkg', 'deep', 'er')), join(dir, 'pkg', 'package.json'));
  assert.equal(findConfigFile(join(dir, 'both')), join(dir, 'both', 'crdgen.config.json'));
  assert.equal(findConfigFile(dir), join(dir, 'crdgen.config.yml'));
  const none = mkdtempSync(join(tmpdir(), 'crdgen-noconfig-'));
  try {
    // nothing up to / (tmpdir has no crdgen config)
    assert.equal(findConfigFile(none), undefined);
  } finally {
    rmSync(none, { recursive: true });
  }
});

test('a full config loads; top-level settings are defaults of each target; a lone string input becomes a list', () => {
  const dir = write({
    'crdgen.config.yaml': [
      '# yaml-language-server: $schema=./schema.json',
      'runtimeImport: "@acme/runtime"',
      'generators: [types, deepcopy]',
      'kinds:',
      '  DatabaseManager: { skipVerbs: [deleteCollection], noStatus: true }',
      'pluralExceptions: { Endpoints: Endpoints }',
      'targets:',
      '  - inputs: crds/apps',
      '    out: gen/apps',
      '  - name: batch',
      '    inputs: [crds/batch, crds/more.yaml]',
      '    out: gen/batch',
      '    generators: [types]',
      '    clean: false',
      '',
    ].join('\n'),
  });
  const r = load(dir, 'crdgen.config.yaml');
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.config!.dir, dir);
  assert.deepEqual(r.config!.targets, [
    {
      name: 'gen/apps',
      inputs: ['crds/apps'],
      out: 'gen/apps',
      runtimeImport: '@acme/runtime',
      generators: ['types', 'deepcopy'],
      kinds: { DatabaseManager: { skipVerbs: ['deleteCollection'], noStatus: true } },
      pluralExceptions: { Endpoints: 'Endpoints' },
    },
    {
      name: 'batch',
      inputs: ['crds/batch', 'crds/more.yaml'],
      out: 'gen/batch',
      runtimeImport: '@acme/runtime',
      generators: ['types'],
      clean: false,
      kinds: { DatabaseManager: { skipVerbs: ['deleteCollection'], noStatus: true } },
      pluralExceptions: { Endpoints: 'Endpoints' },
    },
  ]);
});

test('YAML config errors carry file:line:col, with did-you-mean hints', () => {
  const dir = write({
    'crdgen.config.yaml': [
      'inputs: crds/',
      'out: 3',
      'generatros: [types]',
      'generators: [types, nope]',
      'kinds:',
      '  DatabaseManager:',
      '    verbs: [get, lst]',
      '    readOnly: true',
      '',
    ].join('\n'),
  });
  const r = load(dir, 'crdgen.config.yaml');
  assert.equal(r.config, undefined);
  assert.equal(
    shown(r),
    [
      'crdgen.config.yaml:2:6 error CFG003 out must be string',
      'crdgen.config.yaml:3:1 error CFG003 unknown key "generatros" in (top level)',
      '  hint: did you mean "generators"?',
      'crdgen.config.yaml:4:21 error CFG003 generators[1]: "nope" is not one of "types", "deepcopy", "register", "validators", "clientset", "fake", "listers", "informers", "applyconfig", "controller", "webhooks", "crd" (each also as +name or -name, a change to the defaults; or all)',
      'crdgen.config.yaml:7:18 error CFG003 kinds.DatabaseManager.verbs[1]: "lst" is not one of "create", "update", "updateStatus", "delete", "deleteCollection", "get", "list", "watch", "patch", "apply", "applyStatus"',
      '  hint: did you mean "list"?',
      'crdgen.config.yaml:8:5 error CFG003 unknown key "readOnly" in kinds.DatabaseManager',
      '  hint: did you mean "readonly"?',
      '',
    ].join('\n'),
  );
});

test('JSON configs and package.json "crdgen" get positions too', () => {
  const dir = write({
    'crdgen.config.json': '{\n  "inputs": ["a.yaml"],\n  "out": "gen",\n  "clean": "yes"\n}\n',
    'package.json': '{\n  "name": "x",\n  "crdgen": {\n    "inputs": "crds",\n    "outt": "gen"\n  }\n}\n',
  });
  assert.equal(shown(load(dir, 'crdgen.config.json')), 'crdgen.config.json:4:12 error CFG003 clean must be boolean\n');
  assert.equal(
    shown(load(dir, 'package.json')),
    ['package.json:5:5 error CFG003 unknown key "outt" in (top level)', '  hint: did you mean "out"?', ''].join('\n'),
  );
});

test('syntax errors, missing inputs/out in targets, empty and unreadable configs', () => {
  const dir = write({
    'bad.yaml': 'inputs: [a\nout: b\n',
    'targets.yaml': 'out: shared\ntargets:\n  - inputs: a\n  - out: only\n',
    'empty.yaml': '# nothing yet\n',
    'dup.yaml': 'out: a\nout: b\ninputs: c\n',
  });
  const bad = load(dir, 'bad.yaml');
  assert.match(shown(bad), /^bad\.yaml:\d+:\d+ error CFG002 /);
  assert.equal(
    shown(load(dir, 'targets.yaml')),
    'targets.yaml:4:5 error CFG003 targets[1] needs "inputs"\n  hint: set it in the target or at the top level\n',
  );
  assert.match(shown(load(dir, 'empty.yaml')), /^empty\.yaml(:\d+:\d+)? error CFG003 the config is empty\n/);
  assert.match(shown(load(dir, 'dup.yaml')), /^dup\.yaml:2:1 error CFG002 Map keys must be unique/);
  assert.match(shown(load(dir, 'missing.yaml')), /^missing\.yaml error CFG001 cannot read config: ENOENT\n$/);
});

test("image: { base } of the operators' image: a target's wins; a bad base or key is an error at its position", () => {
  const dir = write({
    'ok.yaml': [
      'controllers: [DatabaseManager]',
      'image: { base: distroless }',
      'targets:',
      '  - { inputs: a, out: gen/a }',
      '  - { inputs: b, out: gen/b, image: { base: "registry.example.com:5000/node:24-alpine" } }',
      '',
    ].join('\n'),
    'bad.yaml': [
      'inputs: a',
      'out: gen',
      'image:',
      '  base: "node:22-alpine\\nRUN wget evil"',
      'targets:',
      '  - image: { base: Node:22 }',
      '  - image: { bsae: distroless }',
      '  - image: node22-alpine',
      '',
    ].join('\n'),
  });
  const ok = load(dir, 'ok.yaml');
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(
    ok.config!.targets.map((t) => t.image),
    [{ base: 'distroless' }, { base: 'registry.example.com:5000/node:24-alpine' }],
  );
  assert.equal(
    shown(load(dir, 'bad.yaml')),
    [
      'bad.yaml:4:9 error CFG003 image.base: "node:22-alpine\\nRUN wget evil" is not node22-alpine, distroless nor an image reference',
      '  hint: an image reference is [registry/]name[:tag][@digest] with a lowercase name, e.g. node:24-alpine or gcr.io/distroless/nodejs22-debian12:nonroot',
      'bad.yaml:6:20 error CFG003 targets[0].image.base: "Node:22" is not node22-alpine, distroless nor an image reference',
      '  hint: an image reference is [registry/]name[:tag][@digest] with a lowercase name, e.g. node:24-alpine or gcr.io/distroless/nodejs22-debian12:nonroot',
      'bad.yaml:7:14 error CFG003 unknown key "bsae" in targets[1].image',
      '  hint: did you mean "base"?',
      'bad.yaml:8:12 error CFG003 targets[2].image must be object',
      '',
    ].join('\n'),
  );
});

test('didYouMean only suggests close words', () => {
  assert.equal(didYouMean('outt', ['out', 'inputs']), 'out');
  assert.equal(didYouMean('banana', ['out', 'inputs']), undefined);
});

test('sharding: true loads into each target; a value that is not a boolean, or a misspelt key, is a positioned error', () => {
  const good = write({
    'crdgen.config.yaml':
      'inputs: crds/\nsharding: true\ntargets:\n  - out: a\n    controllers: [DatabaseManager]\n  - out: b\n    sharding: false\n',
  });
  const r = load(good, 'crdgen.config.yaml');
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.config!.targets.map((t) => [t.out, t.sharding]),
    [
      ['a', true],
      ['b', false],
    ],
  );
  const bad = write({
    'crdgen.config.yaml':
      'inputs: crds/\nout: gen\ncontrollers: [DatabaseManager]\nsharding: [DatabaseManager]\nshardng: true\n',
  });
  assert.equal(
    shown(load(bad, 'crdgen.config.yaml')),
    [
      'crdgen.config.yaml:4:11 error CFG003 sharding must be boolean',
      'crdgen.config.yaml:5:1 error CFG003 unknown key "shardng" in (top level)',
      '  hint: did you mean "sharding"?',
      '',
    ].join('\n'),
  );
});
