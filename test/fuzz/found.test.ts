// Inputs the fuzzers found, kept as plain regression tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCrdInputs } from '../../src/input/crd/index.js';

const crd = (pattern: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string, pattern: ${JSON.stringify(pattern)}}
`;

test('a pattern that is not a regular expression is a positioned CRD037 (it crashed the validators emitter)', () => {
  const r = readCrdInputs([{ file: 'p.yaml', content: crd('^(([0-9]+*a)ms)?$') }]);
  const d = r.diagnostics.find((x) => x.code === 'CRD037');
  assert.ok(d, JSON.stringify(r.diagnostics));
  assert.equal(d.severity, 'error');
  assert.equal(d.line, 20);
  assert.ok((d.col ?? 0) > 1);
  assert.match(d.message, /must be a valid regular expression/);
  assert.equal(readCrdInputs([{ file: 'p.yaml', content: crd('^[a-z]+(\\.[a-z]+)*$') }]).diagnostics.filter((x) => x.severity === 'error').length, 0);
});
