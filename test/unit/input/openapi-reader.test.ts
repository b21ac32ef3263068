// The OpenAPI reader on the real kube-apiserver v1.37.1 document (schema/kubernetes/…) and on
// small documents: kinds from x-kubernetes-group-version-kind and the paths, shared definitions
// as one node declared in their own version, readable names, and diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOpenApiInputs } from '../../../src/input/openapi/index.js';
import { readApiInputs } from '../../../src/input/read-inputs.js';
import type { Kind, Model, ObjectNode, SchemaNode } from '../../../src/model/types.js';
import { ROOT } from '../../golden/support.js';

const KUBE = 'schema/kubernetes/v1.37.1/openapi-v3.json';
const kubeText = readFileSync(join(ROOT, KUBE), 'utf8');
const errors = (ds: { severity: string }[]) => ds.filter((d) => d.severity === 'error');

function kindOf(model: Model, group: string, version: string, kind: string): Kind {
  const k = model.groups
    .find((g) => g.name === group)
    ?.versions.find((v) => v.name === version)
    ?.kinds.find((x) => x.kind === kind);
  assert.ok(k, `${group}/${version} ${kind}`);
  return k;
}

function prop(node: SchemaNode | undefined, ...names: string[]): SchemaNode {
  let cur = node;
  for (const name of names) {
    if (cur?.type === 'array') cur = cur.items;
    assert.ok(cur && cur.type === 'object', `object expected for ${name}`);
    const p = cur.properties.find((x) => x.name === name);
    assert.ok(p, `property ${name}`);
    cur = p.schema;
  }
  return cur!;
}

function obj(node: SchemaNode): ObjectNode {
  assert.equal(node.type, 'object');
  return node;
}

const kube = readOpenApiInputs([{ file: KUBE, content: kubeText }]);

test('the Kubernetes document: every served kind, with the plural, scope, verbs and subresources its paths give', () => {
  assert.deepEqual(errors(kube.diagnostics), []);
  assert.deepEqual(kube.diagnostics, []);
  const groups = kube.model.groups.map((g) => `${g.name}/${g.versions.map((v) => v.name).join(',')}`);
  assert.deepEqual(groups, [
    '/v1',
    'admissionregistration.k8s.io/v1',
    'apiextensions.k8s.io/v1',
    'apps/v1',
    'autoscaling/v1',
    'batch/v1',
    'coordination.k8s.io/v1',
    'events.k8s.io/v1',
    'networking.k8s.io/v1',
    'policy/v1',
    'rbac.authorization.k8s.io/v1',
  ]);
  const pod = kindOf(kube.model, '', 'v1', 'Pod');
  assert.equal(pod.plural, 'pods');
  assert.equal(pod.scope, 'Namespaced');
  assert.equal(pod.subresources.status, true);
  assert.deepEqual(pod.verbs, [
    'create',
    'update',
    'updateStatus',
    'delete',
    'deleteCollection',
    'get',
    'list',
    'watch',
    'patch',
    'apply',
    'applyStatus',
  ]);
  const ns = kindOf(kube.model, '', 'v1', 'Namespace');
  assert.equal(ns.scope, 'Cluster');
  assert.equal(ns.plural, 'namespaces');
  assert.equal(kindOf(kube.model, '', 'v1', 'Endpoints').plural, 'endpoints');
  assert.deepEqual(kindOf(kube.model, '', 'v1', 'Binding').verbs, ['create']);
  assert.deepEqual(kindOf(kube.model, '', 'v1', 'ComponentStatus').verbs, ['get', 'list']);
  const deploy = kindOf(kube.model, 'apps', 'v1', 'Deployment');
  assert.deepEqual(deploy.subresources.scale, {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
  });
  assert.equal(kindOf(kube.model, 'coordination.k8s.io', 'v1', 'Lease').subresources.status, false);
  // what is only a body (autoscaling/v1 Scale, policy/v1 Eviction) or a list is not a kind
  const all = kube.model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds.map((k) => k.kind)));
  for (const notKind of ['Scale', 'Eviction', 'PodList', 'DeleteOptions', 'Status', 'WatchEvent'])
    assert.ok(!all.includes(notKind), notKind);
  // a kind's position is its schema's key in the document
  const line = kubeText.split('\n').findIndex((l) => l.includes('"io.k8s.api.apps.v1.Deployment": {')) + 1;
  assert.equal(deploy.source.file, KUBE);
  assert.equal(deploy.source.line, line);
});

test('shared definitions are one node, declared in their own version; ObjectMeta is the runtime’s', () => {
  const pod = kindOf(kube.model, '', 'v1', 'Pod');
  const deploy = kindOf(kube.model, 'apps', 'v1', 'Deployment');
  const job = kindOf(kube.model, 'batch', 'v1', 'Job');
  const podSpec = obj(prop(pod.schema, 'spec'));
  assert.equal(podSpec.title, 'PodSpec');
  assert.deepEqual(podSpec.declaredIn, { group: '', version: 'v1' });
  const template = obj(prop(deploy.schema, 'spec', 'template'));
  assert.equal(template.title, 'PodTemplateSpec');
  assert.deepEqual(template.declaredIn, { group: '', version: 'v1' });
  assert.equal(prop(template, 'spec'), podSpec, 'Deployment and Pod share the PodSpec node');
  assert.equal(prop(job.schema, 'spec', 'template'), template, 'and Job the PodTemplateSpec');
  const meta = obj(prop(template, 'metadata'));
  assert.equal(meta.title, 'ObjectMeta');
  assert.equal(meta.declaredIn, 'runtime');
  // a definition of a package that has no kind in the model is declared where it is used
  const selector = obj(prop(deploy.schema, 'spec', 'selector'));
  assert.equal(selector.title, 'LabelSelector');
  assert.equal(selector.declaredIn, undefined);
  // the description at the use site is the property's
  const spec = obj(deploy.schema!).properties.find((p) => p.name === 'spec')!;
  assert.match(spec.description!, /^Specification of the desired behavior of the Deployment/);
  assert.match(spec.schema.description!, /^DeploymentSpec is the specification/);
  // IntOrString and Quantity
  assert.equal(prop(deploy.schema, 'spec', 'strategy', 'rollingUpdate', 'maxSurge').type, 'int-or-string');
  const limits = prop(podSpec, 'containers', 'resources', 'limits');
  assert.equal(limits.type === 'map' && limits.values.type, 'int-or-string');
});

test('names: the definition’s own name; a name two types would take in one version gets the package in front', () => {
  const event = kindOf(kube.model, 'events.k8s.io', 'v1', 'Event');
  assert.equal(obj(prop(event.schema, 'series')).title, 'EventSeries');
  assert.equal(obj(prop(kindOf(kube.model, '', 'v1', 'Event').schema, 'series')).title, 'EventSeries');
  const doc = (schemas: Record<string, unknown>, paths: Record<string, unknown>) =>
    JSON.stringify({ openapi: '3.0.0', paths, components: { schemas } });
  const gvk = [{ group: 'example.com', version: 'v1', kind: 'Widget' }];
  const r = readOpenApiInputs([
    {
      file: 'w.json',
      content: doc(
        {
          'io.example.v1.Widget': {
            type: 'object',
            'x-kubernetes-group-version-kind': gvk,
            properties: {
              a: { $ref: '#/components/schemas/io.example.v1.Part' },
              b: { $ref: '#/components/schemas/io.other.v2.Part' },
              c: { $ref: '#/components/schemas/io.example.v1.Promise' },
            },
          },
          'io.example.v1.Part': { type: 'object', properties: { x: { type: 'string' } } },
          'io.other.v2.Part': { type: 'object', properties: { y: { type: 'string' } } },
          'io.example.v1.Promise': {
            type: 'object',
            properties: { z: { type: 'object', properties: { deep: { type: 'boolean' } } } },
          },
        },
        {
          '/apis/example.com/v1/widgets': {
            get: { 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk[0] },
          },
        },
      ),
    },
  ]);
  assert.deepEqual(errors(r.diagnostics), []);
  const w = kindOf(r.model, 'example.com', 'v1', 'Widget');
  assert.equal(w.scope, 'Cluster');
  assert.deepEqual(w.verbs, ['list']);
  assert.equal(obj(prop(w.schema, 'a')).title, 'ExampleV1Part');
  assert.equal(obj(prop(w.schema, 'b')).title, 'OtherV2Part');
  // a reserved name (a global the generated code uses) and an object inline in it
  assert.equal(obj(prop(w.schema, 'c')).title, 'ExampleV1Promise');
  assert.equal(obj(prop(w.schema, 'c', 'z')).title, 'ExampleV1PromiseZ');
});

test('a recursive definition (JSONSchemaProps) is named where it recurs, without a cycle in the model', () => {
  const crd = kindOf(kube.model, 'apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');
  const props = obj(prop(crd.schema, 'spec', 'versions', 'schema', 'openAPIV3Schema'));
  assert.equal(props.title, 'JSONSchemaProps');
  const inner = prop(props, 'properties');
  assert.equal(inner.type, 'map');
  assert.equal(inner.type === 'map' && inner.values.type === 'object' && inner.values.title, 'JSONSchemaProps');
  assert.notEqual(inner.type === 'map' && inner.values, props, 'a stub, not the node itself');
  assert.doesNotThrow(() => JSON.stringify(crd.schema));
});

test('kinds: a selection; then a definition whose version is not selected is declared where it is used', () => {
  const r = readOpenApiInputs([{ file: KUBE, content: kubeText }], { kinds: ['apps/v1/Deployment', 'v1/ConfigMap'] });
  assert.deepEqual(errors(r.diagnostics), []);
  assert.deepEqual(
    r.model.groups
      .map((g) => g.versions.map((v) => `${g.name}/${v.name}: ${v.kinds.map((k) => k.kind).join(',')}`))
      .flat(),
    ['/v1: ConfigMap', 'apps/v1: Deployment'],
  );
  const template = obj(prop(kindOf(r.model, 'apps', 'v1', 'Deployment').schema, 'spec', 'template'));
  assert.equal(template.declaredIn, undefined, 'core/v1 ConfigMap does not use PodTemplateSpec: apps/v1 declares it');
  const bad = readOpenApiInputs([{ file: KUBE, content: kubeText }], { kinds: ['apps/v1/Deploymnt'] });
  assert.deepEqual(
    bad.diagnostics.map((d) => d.code),
    ['OAPI010'],
  );
  assert.equal(bad.model.groups.length, 0);
});

test('a document without paths: kinds are the objects with metadata, their plural and scope guessed (OAPI008 warning)', () => {
  const gvk = [{ group: 'example.com', version: 'v1', kind: 'Policy' }];
  const r = readOpenApiInputs([
    {
      file: 'p.json',
      content: JSON.stringify({
        openapi: '3.0.0',
        components: {
          schemas: {
            'io.example.v1.Policy': {
              type: 'object',
              'x-kubernetes-group-version-kind': gvk,
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
              },
            },
            'io.example.v1.PolicyList': {
              type: 'object',
              'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'PolicyList' }],
              properties: { items: { type: 'array', items: { $ref: '#/components/schemas/io.example.v1.Policy' } } },
            },
            'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
              type: 'object',
              properties: { name: { type: 'string' } },
            },
          },
        },
      }),
    },
  ]);
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.severity} ${d.code}`),
    ['warning OAPI008'],
  );
  const p = kindOf(r.model, 'example.com', 'v1', 'Policy');
  assert.equal(p.plural, 'policies');
  assert.equal(p.scope, 'Namespaced');
  assert.ok(!r.model.groups[0].versions[0].kinds.some((k) => k.kind === 'PolicyList'));
});

test('readApiInputs tells OpenAPI from CRD YAML by content, and refuses to mix them', () => {
  const openapi = readApiInputs([{ file: KUBE, content: kubeText }]);
  assert.equal(openapi.format, 'openapi');
  const crd = readApiInputs([
    {
      file: 'fixtures/databasemanager/crd.yaml',
      content: readFileSync(join(ROOT, 'fixtures/databasemanager/crd.yaml')),
    },
  ]);
  assert.equal(crd.format, 'yaml');
  assert.equal(errors(crd.diagnostics).length, 0);
  const mixed = readApiInputs([
    {
      file: 'fixtures/databasemanager/crd.yaml',
      content: readFileSync(join(ROOT, 'fixtures/databasemanager/crd.yaml')),
    },
    { file: KUBE, content: kubeText },
  ]);
  assert.deepEqual(
    mixed.diagnostics.map((d) => d.code),
    ['CLI003'],
  );
  assert.equal(mixed.model.groups.length, 0);
});

test('an OpenAPI document in YAML reads like its JSON', () => {
  const yaml =
    'openapi: 3.0.0\npaths:\n  /apis/example.com/v1/namespaces/{namespace}/widgets:\n    post:\n      x-kubernetes-action: post\n      x-kubernetes-group-version-kind: {group: example.com, version: v1, kind: Widget}\ncomponents:\n  schemas:\n    io.example.v1.Widget:\n      type: object\n      x-kubernetes-group-version-kind: [{group: example.com, version: v1, kind: Widget}]\n      properties:\n        size:\n          type: integr\n';
  const r = readOpenApiInputs([{ file: 'w.yaml', content: yaml }]);
  assert.equal(r.diagnostics.length, 1);
  const d = r.diagnostics[0];
  assert.equal(d.code, 'OAPI007');
  assert.equal(d.line, 14);
  assert.equal(d.col, 17); // the value, as the CRD reader points at YAML scalars
  assert.equal(d.hint, 'did you mean "integer"?');
  assert.equal(d.path, 'components.schemas["io.example.v1.Widget"].properties.size.type');
});
