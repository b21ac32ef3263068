// CRDs given to startTestApiServer as files: YAML (several documents), JSON, YAML that only
// the full parser reads (anchors), and a syntax error reported as the file's error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api } from './helpers.js';

function crdYaml(plural: string, extra = ''): string {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.files.example.com
spec:
  group: files.example.com
  scope: Namespaced
  names: {plural: ${plural}, singular: ${plural.slice(0, -1)}, kind: ${kind}, listKind: ${kind}List}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:${extra || '\n              type: object\n              x-kubernetes-preserve-unknown-fields: true'}
`;
}

describe('CRD files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'crdgen-crd-files-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('installs every CRD of multi-document YAML, JSON, and YAML with anchors', async () => {
    const multi = join(dir, 'multi.yaml');
    writeFileSync(multi, `---\n${crdYaml('apples')}---\n${crdYaml('pears')}`);
    const json = join(dir, 'dm.json');
    const dmYaml = readFileSync(DM_CRD, 'utf8');
    const { parse } = await import('yaml');
    writeFileSync(json, JSON.stringify(parse(dmYaml)));
    const anchors = join(dir, 'anchors.yaml');
    writeFileSync(
      anchors,
      crdYaml(
        'plums',
        '\n              type: object\n              properties:\n                a: &int {type: integer, maximum: 5}\n                b: *int',
      ),
    );
    const env = await startTestApiServer({ crds: [multi, json, anchors] });
    try {
      for (const p of ['apples', 'pears', 'plums']) {
        assert.equal((await api(env.url, 'GET', `/apis/files.example.com/v1/namespaces/default/${p}`)).status, 200, p);
      }
      assert.equal(
        (await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers')).status,
        200,
      );
      const r = await api(env.url, 'POST', '/apis/files.example.com/v1/namespaces/default/plums', {
        apiVersion: 'files.example.com/v1',
        kind: 'Plum',
        metadata: { name: 'p' },
        spec: { a: 1, b: 6 },
      });
      assert.equal(r.status, 422, 'the aliased schema applies to b');
      assert.deepEqual(
        r.body.details.causes.map((c: { field: string }) => c.field),
        ['spec.b'],
      );
    } finally {
      await env.stop();
    }
  });

  it('a YAML syntax error names the file and the problem, without a stack trace', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiextensions.k8s.io/v1\nkind: [unclosed\n');
    await assert.rejects(
      startTestApiServer({ crds: [bad] }),
      (e: Error) => e.message.startsWith(`${bad}: `) && !e.message.includes('    at '),
    );
  });
});
