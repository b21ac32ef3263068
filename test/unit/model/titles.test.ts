// Interface names from the path: list items in the singular, and one name (one interface) for
// objects of one schema, descriptions included — measured on Argo CD's CRDs, whose paths repeat
// the same shapes (ApplicationSource under spec, status.history[], operation.sync, …).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { singularTitle } from '../../../src/model/titles.js';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { types } from '../../../src/generate/types.js';
import { CORPUS } from '../../golden/support.js';

test('singularTitle: the last word of a list property in the singular; acronyms, short words and non-plurals kept', () => {
  const cases: Record<string, string> = {
    CertificateStatusConditions: 'CertificateStatusCondition',
    HTTPRouteSpecRules: 'HTTPRouteSpecRule',
    FooSpecPolicies: 'FooSpecPolicy',
    FooSpecAddresses: 'FooSpecAddress',
    FooSpecMatches: 'FooSpecMatch',
    FooSpecHostAliases: 'FooSpecHostAlias',
    FooSpecIPs: 'FooSpecIP',
    FooSpecCIDRs: 'FooSpecCIDR',
    FooSpecStatus: 'FooSpecStatus',
    FooSpecTLS: 'FooSpecTLS',
    FooSpecTls: 'FooSpecTls',
    FooSpecRedis: 'FooSpecRedis',
    FooSpecData: 'FooSpecData',
    FooSpecEnv: 'FooSpecEnv',
    FooSpecArgs: 'FooSpecArg',
    FooSpecDns: 'FooSpecDns',
    FooSpecItems: 'FooSpecItem',
    FooSpecSeries: 'FooSpecSeries',
    FooSpecKubernetes: 'FooSpecKubernetes',
  };
  for (const [plural, singular] of Object.entries(cases)) assert.equal(singularTitle(plural), singular, plural);
});

function typesOf(yaml: string): string {
  const r = readCrdInputs([{ file: 'inline.yaml', content: Buffer.from(yaml) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return types(r.model, createEmitContext({ sources: ['inline.yaml'] }))[0].contents;
}

const interfaces = (text: string): string[] => [...text.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]);

function crd(props: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.x.example.com
spec:
  group: x.example.com
  names: { kind: Foo, plural: foos, singular: foo, listKind: FooList }
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
${props}`;
}

const ref = (description: string) => `type: object
                  description: ${description}
                  properties:
                    name: { type: string }
                    port: { type: integer }`;

test('objects of one schema and description share one interface, named from the path nearest the root', () => {
  const text = typesOf(
    crd(`                backend:
                  ${ref('A backend.')}
                mirror:
                  type: object
                  properties:
                    target:
                      ${ref('A backend.').replace(/\n {18}/g, '\n                      ')}
                other:
                  ${ref('Another thing.')}`),
  );
  assert.deepEqual(interfaces(text), ['Foo', 'FooSpec', 'FooSpecBackend', 'FooSpecMirror', 'FooSpecOther', 'FooList']);
  assert.match(text, /target\?: FooSpecBackend;/);
  // same properties, another description: its own interface (the doc would be wrong for one of them)
  assert.match(text, /other\?: FooSpecOther;/);
});

test('a list item whose singular name is taken keeps the plural instead of a numeric suffix', () => {
  const text = typesOf(
    crd(`                rule:
                  type: object
                  properties:
                    a: { type: string }
                rules:
                  type: array
                  items:
                    type: object
                    properties:
                      b: { type: string }`),
  );
  assert.deepEqual(interfaces(text), ['Foo', 'FooSpec', 'FooSpecRule', 'FooSpecRules', 'FooList']);
  assert.match(text, /rules\?: FooSpecRules\[\];/);
});

test('cert-manager: a Certificate condition is CertificateStatusCondition', () => {
  const file = join(CORPUS, 'cert-manager', 'cert-manager.io_certificates.yaml');
  assert.ok(existsSync(file), `corpus not found at ${CORPUS}`);
  const r = readCrdInputs([{ file, content: readFileSync(file) }]);
  const text = types(r.model, createEmitContext({ sources: r.model.sources }))[0].contents;
  assert.match(text, /conditions\?: CertificateStatusCondition\[\];/);
  assert.doesNotMatch(text, /CertificateStatusConditions\b/);
});

test('Argo CD: identical shapes emitted once — fewer, shorter interface names (measured: 307 interfaces up to 100 characters before)', () => {
  const dir = join(CORPUS, 'argo-cd');
  assert.ok(existsSync(dir), `corpus not found at ${dir}`);
  const files = ['application-crd.yaml', 'appproject-crd.yaml'].map((f) => join(dir, f));
  const r = readCrdInputs(files.map((file) => ({ file, content: readFileSync(file) })));
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const names = types(r.model, createEmitContext({ sources: r.model.sources })).flatMap((f) => interfaces(f.contents));
  assert.equal(new Set(names).size, names.length, 'each name declared once');
  assert.ok(names.length <= 100, `${names.length} interfaces`);
  const longest = Math.max(...names.map((n) => n.length));
  assert.ok(longest <= 70, `longest name ${longest} characters`);
  assert.ok(!names.some((n) => /\d$/.test(n)), `no numeric suffixes: ${names.filter((n) => /\d$/.test(n)).join(', ')}`);
  // ApplicationSource is named where spec has it, and shared by status.history[] and operation.sync
  assert.ok(names.includes('ApplicationSpecSource'));
});
