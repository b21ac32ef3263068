// The Gateway API suite through GENERATED code: the Gateway API CRDs are generated (validators
// emitter) into a temporary folder in the repository, each apis/<group>/<version>/validation.ts is
// imported (tsx), and every example goes through default<Kind> then validate<Kind>, as the
// apiserver defaults then validates on create.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { validators } from '../../src/generate/validators.js';
import { formatFieldError, type FieldError } from '../../src/runtime/validation/index.js';
import { ROOT, writeTree } from '../golden/support.js';
import { CRDS, expectations, loadYaml, SUITE, yamlFiles } from './gateway-suite.js';

type Module = Record<string, (obj: unknown, old?: unknown) => unknown>;

describe('Gateway API examples through the generated validators', () => {
  let dir: string | undefined;
  const modules = new Map<string, Module>();

  before(async () => {
    const inputs = readdirSync(CRDS)
      .sort()
      .map((f) => ({ file: `gateway-api/${f}`, content: readFileSync(join(CRDS, f)) }));
    const r = readCrdInputs(inputs);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const files = validators(
      r.model,
      createEmitContext({ sources: r.model.sources, runtimeImport: join(ROOT, 'src', 'runtime', 'index.js') }),
    );
    dir = mkdtempSync(join(ROOT, '.tmp-gateway-generated-'));
    writeTree(dir, files);
    for (const f of files) {
      const [, group, version] = f.path.split('/');
      modules.set(`${group}/${version}`, (await import(pathToFileURL(join(dir, f.path)).href)) as Module);
    }
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** default<Kind> then validate<Kind> from the generated module of the object's apiVersion. */
  function admit(obj: Record<string, unknown>): string[] {
    const mod = modules.get(obj.apiVersion as string);
    const kind = obj.kind as string;
    assert.ok(
      mod && mod[`validate${kind}`] && mod[`default${kind}`],
      `no generated validator for ${obj.apiVersion as string} ${kind}`,
    );
    mod[`default${kind}`](obj);
    return (mod[`validate${kind}`](obj) as FieldError[]).map(formatFieldError);
  }

  it('generates validate/default for every kind and version', () => {
    assert.deepEqual([...modules.keys()].sort(), ['gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1beta1']);
    for (const kind of ['Gateway', 'GatewayClass', 'HTTPRoute'])
      assert.equal(typeof modules.get('gateway.networking.k8s.io/v1')![`validate${kind}`], 'function', kind);
  });

  for (const file of yamlFiles(join(SUITE, 'valid'))) {
    it(`accepts ${relative(SUITE, file)}`, () => {
      for (const obj of loadYaml(file)) assert.deepEqual(admit(obj), []);
    });
  }

  const expected = expectations();
  for (const file of yamlFiles(join(SUITE, 'invalid'))) {
    const rel = relative(SUITE, file);
    it(`rejects ${rel} for the stated reason`, () => {
      const errors = admit(loadYaml(file)[0]);
      assert.ok(errors.length > 0, 'accepted');
      const subs = expected.get(rel) ?? [];
      assert.ok(subs.length > 0, `EXPECTED.md has no substring for ${rel}`);
      for (const sub of subs)
        assert.ok(
          errors.some((e) => e.includes(sub)),
          `no error contains ${JSON.stringify(sub)}:\n${errors.join('\n')}`,
        );
    });
  }
});
