// Gateway API's own valid/invalid examples through the validation engine, with the corpus's
// Gateway API CRDs: every valid example accepted, every invalid one rejected with the substrings
// EXPECTED.md names (read from the table, not copied here).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  compileValidator,
  formatFieldError,
  lazyValidator,
  precompileSchema,
  type StructuralValidator,
} from '../../src/runtime/validation/index.js';
import { CRDS, expectations, loadYaml, SUITE, yamlFiles } from './gateway-suite.js';

/**
 * `group/version/Kind` → validator, one per served version of each CRD: compiled from the CRD
 * (what crdgen/testing does) or from the precompiled JSON literal (what generated validators embed).
 */
const crds = readdirSync(CRDS)
  .sort()
  .flatMap((f) => loadYaml(join(CRDS, f)));

function loadValidators(precompiled: boolean): Map<string, StructuralValidator> {
  const out = new Map<string, StructuralValidator>();
  for (const crd of crds) {
    const spec = crd.spec as {
      group: string;
      names: { kind: string };
      versions: { name: string; schema: { openAPIV3Schema: unknown } }[];
    };
    for (const v of spec.versions) {
      const schema = v.schema.openAPIV3Schema;
      const validator = precompiled
        ? lazyValidator(JSON.parse(JSON.stringify(precompileSchema(schema))))
        : compileValidator(schema);
      out.set(`${spec.group}/${v.name}/${spec.names.kind}`, validator);
    }
  }
  return out;
}

/** What the apiserver does on create: prune, default, validate. */
function admit(validators: Map<string, StructuralValidator>, obj: Record<string, unknown>): string[] {
  const v = validators.get(`${obj.apiVersion as string}/${obj.kind as string}`);
  assert.ok(v, `no CRD for ${obj.apiVersion as string} ${obj.kind as string}`);
  v.prune(obj);
  v.applyDefaults(obj);
  return v.validate(obj).map(formatFieldError);
}

for (const precompiled of [false, true])
  describe(`Gateway API examples through the validation engine (${precompiled ? 'precompiled form' : 'from the CRD'})`, () => {
    const validators = loadValidators(precompiled);
    const expected = expectations();

    it('EXPECTED.md lists every invalid example with at least one substring', () => {
      const files = yamlFiles(join(SUITE, 'invalid')).map((f) => relative(SUITE, f));
      assert.equal(files.length, 27);
      assert.deepEqual([...expected.keys()].sort(), files);
      for (const [f, subs] of expected) assert.ok(subs.length > 0, f);
    });

    for (const file of yamlFiles(join(SUITE, 'valid'))) {
      it(`accepts ${relative(SUITE, file)}`, () => {
        for (const obj of loadYaml(file)) assert.deepEqual(admit(validators, obj), []);
      });
    }

    for (const file of yamlFiles(join(SUITE, 'invalid'))) {
      const rel = relative(SUITE, file);
      it(`rejects ${rel} for the stated reason`, () => {
        const docs = loadYaml(file);
        assert.equal(docs.length, 1);
        const errors = admit(validators, docs[0]);
        assert.ok(errors.length > 0, 'accepted');
        for (const sub of expected.get(rel) ?? []) {
          assert.ok(
            errors.some((e) => e.includes(sub)),
            `no error contains ${JSON.stringify(sub)}:\n${errors.join('\n')}`,
          );
        }
      });
    }

    it('reports the upstream wording for an invalid IP address (gateway_test.go form)', () => {
      const obj = {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'g' },
        spec: {
          gatewayClassName: 'x',
          addresses: [{ value: '1.2.3.4:8080' }],
          listeners: [{ name: 'l', port: 80, protocol: 'HTTP' }],
        },
      };
      const errors = admit(validators, obj);
      assert.ok(
        errors.includes(
          'spec.addresses[0].value: Invalid value: "1.2.3.4:8080": spec.addresses[0].value in body must be of type ipv4: "1.2.3.4:8080"',
        ),
        errors.join('\n'),
      );
    });
  });
