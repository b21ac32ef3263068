// The differential suite's CRD cases, generated reproducibly (a fixed seed, sorted inputs): the
// real CRDs of ../shared/corpus/crds as they are and mutated, systematic mutations of one
// synthetic CRD (every family of mistakes, at every schema position), and rules from
// Kubernetes' CEL test tables (../shared/conformance/cel, read from there). Each case is the
// JSON body a client POSTs; its expected verdict is kube-apiserver's, in recording.json.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CORPUS, ROOT, yamlFiles } from '../golden/support.js';

/** The seed of every random choice (which node a corpus mutation touches). */
export const SEED = 37;

/** Where Kubernetes' CEL test tables are (never copied into the repository). */
export const CEL_TABLES = join(ROOT, '..', 'shared', 'conformance', 'cel');

/** The families of cases, in the order the suite reports them. */
export const FAMILIES = [
  'corpus',
  'corpus-mutation',
  'unknown-keys',
  'bounds',
  'defaults',
  'names',
  'oldself',
  'versions',
  'subresources',
  'junctor-rules',
  'structural',
  'conversion',
  'pattern',
  'rule-entries',
  'cost',
  'selectable-fields',
  'crd-metadata',
  'printer-columns',
  'misc',
  'cel-library',
  'cel-validation',
] as const;
export type Family = (typeof FAMILIES)[number];

export interface VerdictCase {
  /** Unique and stable: family, what, where. */
  id: string;
  family: Family;
  /** The request body (JSON text). */
  body: string;
  /**
   * Checked against the test server only, with the reason the reader's verdict is another on
   * purpose (it reads a file, not a request).
   */
  serverOnly?: string;
}

type Json = Record<string, unknown>;

/** sha256 of the body, 16 hex digits: the recording notes it to tell a changed input. */
export function bodyHash(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** mulberry32: a small seeded PRNG (deterministic across runs and machines). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text; `{"$int": "…"}` (the CEL tables' exact integers) written as the integer itself. */
function toJson(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 1 && '$int' in x
      ? `\u0000INT${String((x as { $int: string }).$int)}\u0000`
      : x,
  );
  return text.replace(/"\\u0000INT(-?\d+)\\u0000"/g, '$1');
}

// ---------------------------------------------------------------------------------------------
// The synthetic CRD

/** The synthetic CRD every systematic mutation starts from: one of each kind of schema node. */
export function widget(): Json & { spec: Json; metadata: Json } {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    name: { type: 'string', maxLength: 63 },
                    replicas: { type: 'integer', format: 'int32', minimum: 0 },
                    ratio: { type: 'number' },
                    enabled: { type: 'boolean' },
                    mode: { type: 'string', enum: ['Fast', 'Slow'] },
                    tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
                    labels: {
                      type: 'object',
                      maxProperties: 16,
                      additionalProperties: { type: 'string', maxLength: 64 },
                    },
                    ports: {
                      type: 'array',
                      maxItems: 8,
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['port'],
                      items: {
                        type: 'object',
                        required: ['port'],
                        properties: {
                          port: { type: 'integer' },
                          protocol: { type: 'string', maxLength: 8 },
                        },
                      },
                    },
                    byName: {
                      type: 'object',
                      maxProperties: 8,
                      additionalProperties: {
                        type: 'object',
                        properties: { value: { type: 'string', maxLength: 16 } },
                      },
                    },
                    matrix: {
                      type: 'array',
                      maxItems: 4,
                      items: { type: 'array', maxItems: 4, items: { type: 'integer' } },
                    },
                    config: {
                      type: 'object',
                      'x-kubernetes-map-type': 'atomic',
                      properties: { level: { type: 'integer' }, note: { type: 'string', maxLength: 16 } },
                    },
                    size: {
                      'x-kubernetes-int-or-string': true,
                      anyOf: [{ type: 'integer' }, { type: 'string' }],
                    },
                    template: {
                      type: 'object',
                      'x-kubernetes-embedded-resource': true,
                      'x-kubernetes-preserve-unknown-fields': true,
                    },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  };
}

type Crd = ReturnType<typeof widget>;
const clone = <T>(v: T): T => structuredClone(v);
const v0 = (c: Crd): Json => (c.spec.versions as Json[])[0];
const root = (c: Crd): Json => (v0(c).schema as Json).openAPIV3Schema as Json;
const specNode = (c: Crd): Json => (root(c).properties as Json).spec as Json;
const prop = (c: Crd, name: string): Json => (specNode(c).properties as Json)[name] as Json;

/** Schema positions a keyword can be put at, each a function giving (creating) the node there. */
export const POSITIONS: Record<string, (c: Crd) => Json> = {
  root: (c) => root(c),
  properties: (c) => prop(c, 'name'),
  items: (c) => prop(c, 'tags').items as Json,
  additionalProperties: (c) => prop(c, 'labels').additionalProperties as Json,
  'items.properties': (c) => ((prop(c, 'ports').items as Json).properties as Json).protocol as Json,
  'additionalProperties.properties': (c) =>
    ((prop(c, 'byName').additionalProperties as Json).properties as Json).value as Json,
  'items.items': (c) => (prop(c, 'matrix').items as Json).items as Json,
  allOf: (c) => junctor(specNode(c), 'allOf'),
  anyOf: (c) => junctor(specNode(c), 'anyOf'),
  oneOf: (c) => junctor(specNode(c), 'oneOf'),
  not: (c) => (specNode(c).not as Json | undefined) ?? (specNode(c).not = {}),
  'items.allOf': (c) => junctor(prop(c, 'tags').items as Json, 'allOf'),
  'additionalProperties.anyOf': (c) => junctor(prop(c, 'labels').additionalProperties as Json, 'anyOf'),
  'allOf.properties': (c) => {
    const j = junctor(specNode(c), 'allOf');
    const props = (j.properties ??= {}) as Json;
    return (props.name ??= {}) as Json;
  },
  status: (c) => (((root(c).properties as Json).status as Json).properties as Json).ready as Json,
};

function junctor(node: Json, j: 'allOf' | 'anyOf' | 'oneOf'): Json {
  const list = (node[j] ??= []) as Json[];
  if (list.length === 0) list.push({});
  return list[0];
}

const ALL_POSITIONS = Object.keys(POSITIONS);
const MAIN_POSITIONS = ['root', 'properties', 'items', 'additionalProperties', 'allOf', 'not', 'items.properties'];

// ---------------------------------------------------------------------------------------------
// The families

function collect(): VerdictCase[] {
  const out: VerdictCase[] = [];
  const seen = new Set<string>();
  const add = (family: Family, what: string, body: unknown, serverOnly?: string): void => {
    const id = `${family}/${what}`;
    if (seen.has(id)) throw new Error(`duplicate case id ${id}`);
    seen.add(id);
    out.push({
      id,
      family,
      body: typeof body === 'string' ? body : toJson(body),
      ...(serverOnly ? { serverOnly } : {}),
    });
  };
  /** A mutation of the synthetic CRD (false: not applicable). */
  const mutated = (family: Family, what: string, fn: (c: Crd) => unknown): void => {
    const c = widget();
    if (fn(c) !== false) add(family, what, c);
  };

  // the synthetic CRD as it is: accepted
  mutated('misc', 'the synthetic CRD as it is', () => {});

  unknownKeys(mutated);
  bounds(mutated);
  defaults(mutated);
  names(mutated);
  oldSelf(mutated);
  versions(mutated, add);
  subresources(mutated);
  junctorRules(mutated);
  structural(mutated);
  conversion(mutated);
  patterns(mutated);
  ruleEntries(mutated);
  costs(mutated);
  selectableFields(mutated);
  crdMetadata(mutated);
  printerColumns(mutated);
  misc(mutated);
  rawBodies(add);
  corpus(add);
  celLibrary(mutated);
  celValidation(add);
  return out;
}

type Mutated = (family: Family, what: string, fn: (c: Crd) => unknown) => void;
type Add = (family: Family, what: string, body: unknown, serverOnly?: string) => void;

/** Adds `rules` on the spec node (or `where`). */
function withRule(c: Crd, rule: Json, where: (c: Crd) => Json = specNode): void {
  const n = where(c);
  ((n['x-kubernetes-validations'] ??= []) as Json[]).push(rule);
}

function unknownKeys(m: Mutated): void {
  const keys: [string, unknown][] = [
    ['minimun', 1],
    ['maxLenght', 5],
    ['fooBar', true],
    ['descripton', 'a typo'],
    ['x-kubernetes-validation', [{ rule: 'true' }]],
    ['x-kubernetes-foo', true],
    ['Type', 'string'],
    ['enums', ['a']],
  ];
  for (const [k, v] of keys)
    for (const p of ALL_POSITIONS) m('unknown-keys', `${k} at ${p}`, (c) => void (POSITIONS[p](c)[k] = v));
  // outside the schema: every struct of the CRD is decoded strictly
  const elsewhere: [string, (c: Crd) => Json][] = [
    ['spec', (c) => c.spec],
    ['spec.names', (c) => c.spec.names as Json],
    ['spec.versions[0]', (c) => v0(c)],
    ['spec.versions[0].schema', (c) => v0(c).schema as Json],
    ['spec.versions[0].subresources', (c) => v0(c).subresources as Json],
    ['spec.versions[0].subresources.status', (c) => (v0(c).subresources as Json).status as Json],
    ['metadata', (c) => c.metadata],
    ['top level', (c) => c],
    ['a rule', (c) => ((specNode(c)['x-kubernetes-validations'] = [{ rule: 'true' }]) as Json[])[0]],
    [
      'a printer column',
      (c) => ((v0(c).additionalPrinterColumns = [{ name: 'N', type: 'string', jsonPath: '.spec.name' }]) as Json[])[0],
    ],
    ['externalDocs', (c) => (specNode(c).externalDocs = { url: 'https://example.com' })],
    [
      'scale',
      (c) =>
        ((v0(c).subresources as Json).scale = {
          specReplicasPath: '.spec.replicas',
          statusReplicasPath: '.status.replicas',
        }),
    ],
    ['conversion', (c) => (c.spec.conversion = { strategy: 'None' })],
    ['a selectable field', (c) => ((v0(c).selectableFields = [{ jsonPath: '.spec.name' }]) as Json[])[0]],
  ];
  for (const [where, at] of elsewhere) {
    m('unknown-keys', `fooBar in ${where}`, (c) => void (at(c).fooBar = 1));
  }
  m('unknown-keys', 'servd in a version', (c) => void (v0(c).servd = true));
  m('unknown-keys', 'two typos in one node', (c) => {
    prop(c, 'replicas').minimun = 1;
    prop(c, 'replicas').maximun = 3;
  });
  m('unknown-keys', 'typo under items and at properties', (c) => {
    (prop(c, 'tags').items as Json).fooBar = 1;
    prop(c, 'name').fooBar = 1;
  });
  m('unknown-keys', 'a v1beta1 field in v1: spec.version', (c) => void (c.spec.version = 'v1'));
  m(
    'unknown-keys',
    'a v1beta1 field in v1: spec.validation',
    (c) => void (c.spec.validation = { openAPIV3Schema: { type: 'object' } }),
  );
  m('unknown-keys', 'JSONPath spelled as v1beta1 in a v1 column', (c) => {
    v0(c).additionalPrinterColumns = [{ name: 'N', type: 'string', JSONPath: '.spec.name' }];
  });
  m('unknown-keys', 'a rule key misspelled', (c) => withRule(c, { rul: 'true', rule: 'true' }));
  m('unknown-keys', 'a status key', (c) => void (c.status = { fooBar: 1 }));
}

function bounds(m: Mutated): void {
  const muts: [string, Json][] = [
    ['maxLength -1', { maxLength: -1 }],
    ['minLength -1', { minLength: -1 }],
    ['maxItems -1', { maxItems: -1 }],
    ['minItems -1', { minItems: -1 }],
    ['maxProperties -1', { maxProperties: -1 }],
    ['minProperties -1', { minProperties: -1 }],
    ['multipleOf 0', { multipleOf: 0 }],
    ['multipleOf -2', { multipleOf: -2 }],
    ['multipleOf 0.5', { multipleOf: 0.5 }],
    ['minimum above maximum', { minimum: 5, maximum: 1 }],
    ['minLength above maxLength', { minLength: 5, maxLength: 1 }],
    ['exclusiveMinimum without minimum', { exclusiveMinimum: true }],
    ['maxLength 1.5', { maxLength: 1.5 }],
    ['maxLength "5"', { maxLength: '5' }],
    ['maxLength beyond int64', { maxLength: 9.3e18 }],
    ['maximum a string', { maximum: '5' }],
    ['exclusiveMaximum a number', { exclusiveMaximum: 5 }],
    ['required not a list', { required: 'name' }],
  ];
  for (const [what, kv] of muts)
    for (const p of MAIN_POSITIONS) m('bounds', `${what} at ${p}`, (c) => void Object.assign(POSITIONS[p](c), kv));
  m('bounds', 'maxItems on a string', (c) => void (prop(c, 'name').maxItems = 3));
  m('bounds', 'format unknown', (c) => void (prop(c, 'name').format = 'no-such-format'));
  m('bounds', 'format int32 on a string', (c) => void (prop(c, 'name').format = 'int32'));
  m('bounds', 'enum empty', (c) => void (prop(c, 'name').enum = []));
  m('bounds', 'enum with a number on a string', (c) => void (prop(c, 'name').enum = ['a', 1]));
  m('bounds', 'enum null', (c) => void (prop(c, 'name').enum = null));
}

function defaults(m: Mutated): void {
  const d = (what: string, fn: (c: Crd) => unknown): void => m('defaults', what, fn);
  d('a number under string additionalProperties', (c) => void (prop(c, 'labels').default = { a: 1 }));
  d(
    'a number as a string additionalProperties default',
    (c) => void ((prop(c, 'labels').additionalProperties as Json).default = 5),
  );
  d('true on int-or-string', (c) => void (prop(c, 'size').default = true));
  d('"50%" on int-or-string', (c) => void (prop(c, 'size').default = '50%'));
  d('3 on int-or-string', (c) => void (prop(c, 'size').default = 3));
  d('duplicate list-map keys', (c) => void (prop(c, 'ports').default = [{ port: 1 }, { port: 1 }]));
  d('distinct list-map keys', (c) => void (prop(c, 'ports').default = [{ port: 1 }, { port: 2 }]));
  d('list-map item missing its key', (c) => void (prop(c, 'ports').default = [{ protocol: 'TCP' }]));
  d('{name} for an embedded resource metadata', (c) => {
    prop(c, 'template').properties = { metadata: { type: 'object', default: { name: 'x' } } };
  });
  d('embedded resource default with metadata name', (c) => {
    prop(c, 'template').default = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  });
  d('embedded resource default without kind', (c) => void (prop(c, 'template').default = { metadata: { name: 'x' } }));
  d('outside the enum', (c) => void (prop(c, 'mode').default = 'Medium'));
  d('inside the enum', (c) => void (prop(c, 'mode').default = 'Fast'));
  d('longer than maxLength', (c) => void (prop(c, 'name').default = 'x'.repeat(64)));
  d('against the pattern', (c) => Object.assign(prop(c, 'name'), { pattern: '^[a-z]+$', default: 'A1' }));
  d('below the minimum', (c) => void (prop(c, 'replicas').default = -1));
  d('int32 overflow', (c) => void (prop(c, 'replicas').default = 2147483648));
  d('int32 max', (c) => void (prop(c, 'replicas').default = 2147483647));
  d('int64 overflow', (c) =>
    Object.assign(prop(c, 'ratio'), { type: 'integer', format: 'int64', default: 9223372036854775808 }),
  );
  d('1.5 for an integer', (c) => void (prop(c, 'replicas').default = 1.5));
  d('a string for an integer', (c) => void (prop(c, 'replicas').default = '1'));
  d('a string for a boolean', (c) => void (prop(c, 'enabled').default = 'true'));
  d('an unknown field', (c) => void (specNode(c).default = { nosuch: 1 }));
  d('a known field', (c) => void (specNode(c).default = { name: 'x' }));
  d('under preserve-unknown-fields', (c) => void (prop(c, 'extra').default = { any: { thing: 1 } }));
  d(
    'in top-level metadata',
    (c) => void ((root(c).properties as Json).metadata = { type: 'object', default: { name: 'x' } }),
  );
  d('at the root', (c) => void (root(c).default = {}));
  d('null', (c) => void (prop(c, 'name').default = null));
  d('null on nullable', (c) => Object.assign(prop(c, 'name'), { nullable: true, default: null }));
  d('under items', (c) => void ((prop(c, 'tags').items as Json).default = 'a'));
  d('under items, too long', (c) => void ((prop(c, 'tags').items as Json).default = 'x'.repeat(33)));
  d('more items than maxItems', (c) => void (prop(c, 'tags').default = Array.from({ length: 17 }, (_, i) => `t${i}`)));
  d('an object missing a required field', (c) => void ((prop(c, 'ports').items as Json).default = { protocol: 'TCP' }));
  d('against a CEL rule', (c) =>
    Object.assign(prop(c, 'name'), { default: 'bad', 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }),
  );
  d('satisfying a CEL rule', (c) =>
    Object.assign(prop(c, 'name'), { default: 'good', 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }),
  );
  d('inside allOf', (c) => void (specNode(c).allOf = [{ properties: { name: { default: 'x' } } }]));
  d('date-time format, bad value', (c) =>
    Object.assign(prop(c, 'name'), { format: 'date-time', default: 'yesterday' }),
  );
  d('byte format, bad base64', (c) => Object.assign(prop(c, 'name'), { format: 'byte', default: '!!' }));
  d('under metadata labels additionalProperties', (c) => {
    prop(c, 'template').properties = {
      metadata: {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } },
      },
    };
  });
  d('an empty object on an object with defaulted children', (c) => {
    prop(c, 'config').default = {};
    (prop(c, 'config').properties as Json).level = { type: 'integer', default: 1 };
  });
  d('an array for an object', (c) => void (prop(c, 'config').default = []));
  d('multipleOf violated', (c) => Object.assign(prop(c, 'replicas'), { multipleOf: 2, default: 3 }));
  d('a map longer than maxProperties', (c) => {
    prop(c, 'labels').default = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  });
  d('x-kubernetes-list-type set with duplicates', (c) =>
    Object.assign(prop(c, 'tags'), { 'x-kubernetes-list-type': 'set', default: ['a', 'a'] }),
  );
}

const KINDS = [
  'widget',
  'Wid-get',
  'Object',
  'Promise',
  'Error',
  'String',
  'Array',
  'Map',
  'Date',
  'JSON',
  'Function',
  'Symbol',
  'Record',
  'Partial',
  'Readonly',
  'Buffer',
  'ObjectMeta',
  'ListMeta',
  'JsonObject',
  'class',
  'delete',
  'constructor',
  'toString',
  'Widget1',
  'W',
  'WIDGET',
  'wIDGET',
  'x-y-z',
  'Interface',
  'Type',
  'Kind',
  'List',
];

function names(m: Mutated): void {
  for (const k of KINDS)
    m('names', `kind ${JSON.stringify(k)}`, (c) => {
      const n = c.spec.names as Json;
      n.kind = k;
      n.listKind = `${k}List`;
    });
  for (const k of ['widgetList', 'Object', 'Promise', 'Widget-List', 'WidgetLists', 'Widget'])
    m('names', `listKind ${JSON.stringify(k)}`, (c) => void ((c.spec.names as Json).listKind = k));
  const bad: [string, (n: Json) => void][] = [
    ['kind starting with a digit', (n) => (n.kind = '1Widget')],
    ['kind with an underscore', (n) => (n.kind = 'Wid_get')],
    ['kind with a dot', (n) => (n.kind = 'Wid.get')],
    ['kind of 64 letters', (n) => (n.kind = `W${'x'.repeat(63)}`)],
    ['kind empty', (n) => (n.kind = '')],
    ['kind missing', (n) => delete n.kind],
    ['listKind missing (defaulted)', (n) => delete n.listKind],
    ['singular missing (defaulted)', (n) => delete n.singular],
    ['plural upper case', (n) => (n.plural = 'Widgets')],
    ['plural missing', (n) => delete n.plural],
    ['singular upper case', (n) => (n.singular = 'Widget')],
    ['singular equals plural', (n) => (n.singular = 'widgets')],
    ['shortName invalid', (n) => (n.shortNames = ['w_1'])],
    ['shortNames valid', (n) => (n.shortNames = ['wd', 'wdg'])],
    ['shortNames duplicate', (n) => (n.shortNames = ['wd', 'wd'])],
    ['category invalid', (n) => (n.categories = ['All'])],
    ['categories valid', (n) => (n.categories = ['all', 'example'])],
    ['kind Widget with listKind lower', (n) => (n.listKind = 'widgetlist')],
  ];
  for (const [what, fn] of bad) m('names', what, (c) => fn(c.spec.names as Json));
  m('names', 'group without a dot', (c) => {
    c.spec.group = 'example';
    c.metadata.name = 'widgets.example';
  });
  m('names', 'group upper case', (c) => {
    c.spec.group = 'Example.com';
    c.metadata.name = 'widgets.Example.com';
  });
  m('names', 'group with an underscore', (c) => {
    c.spec.group = 'ex_ample.com';
    c.metadata.name = 'widgets.ex_ample.com';
  });
  m('names', 'name not plural.group', (c) => void (c.metadata.name = 'gadgets.example.com'));
  m('names', 'protected group without approval', (c) => {
    c.spec.group = 'widgets.k8s.io';
    c.metadata.name = 'widgets.widgets.k8s.io';
  });
  m('names', 'protected group, unapproved', (c) => {
    c.spec.group = 'widgets.k8s.io';
    c.metadata.name = 'widgets.widgets.k8s.io';
    c.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, testing' };
  });
  m('names', 'protected group, approval not a URL', (c) => {
    c.spec.group = 'x.kubernetes.io';
    c.metadata.name = 'widgets.x.kubernetes.io';
    c.metadata.annotations = { 'api-approved.kubernetes.io': 'yes' };
  });
  m('names', 'scope typo', (c) => void (c.spec.scope = 'Namespace'));
  m('names', 'scope Cluster', (c) => void (c.spec.scope = 'Cluster'));
  m('names', 'scope missing', (c) => void delete c.spec.scope);
}

function oldSelf(m: Mutated): void {
  const rule = { rule: 'self == oldSelf', message: 'immutable' };
  const o = (what: string, where: (c: Crd) => Json, extra: (c: Crd) => void = () => {}): void =>
    m('oldself', what, (c) => {
      extra(c);
      withRule(c, { ...rule }, where);
    });
  o('on a property of an atomic map', (c) => (prop(c, 'config').properties as Json).level as Json);
  o('on an atomic map', (c) => prop(c, 'config'));
  o('on a property of a granular map', (c) => prop(c, 'name'));
  o(
    'on a property of an unrecognised-type map',
    (c) => (prop(c, 'config').properties as Json).level as Json,
    (c) => void (prop(c, 'config')['x-kubernetes-map-type'] = 'bogus'),
  );
  o('on an item of an atomic list', (c) => prop(c, 'tags').items as Json);
  o('on an item of a list without list-type', (c) => prop(c, 'matrix').items as Json);
  o(
    'on an item of a set',
    (c) => prop(c, 'tags').items as Json,
    (c) => void (prop(c, 'tags')['x-kubernetes-list-type'] = 'set'),
  );
  o('on an item of a list-map', (c) => prop(c, 'ports').items as Json);
  o(
    'on a property of an item of a list-map',
    (c) => ((prop(c, 'ports').items as Json).properties as Json).protocol as Json,
  );
  o('on an atomic list', (c) => prop(c, 'tags'));
  o(
    'on a set',
    (c) => prop(c, 'tags'),
    (c) => void (prop(c, 'tags')['x-kubernetes-list-type'] = 'set'),
  );
  o('on additionalProperties values', (c) => prop(c, 'labels').additionalProperties as Json);
  o(
    'on a property under additionalProperties',
    (c) => ((prop(c, 'byName').additionalProperties as Json).properties as Json).value as Json,
  );
  o('on an item of an item of a list', (c) => (prop(c, 'matrix').items as Json).items as Json);
  o('at the root', (c) => root(c));
  o('on the status', (c) => (root(c).properties as Json).status as Json);
  o('on a property of an atomic map inside a list-map item', (c) => {
    const item = prop(c, 'ports').items as Json;
    (item.properties as Json).opts = {
      type: 'object',
      'x-kubernetes-map-type': 'atomic',
      properties: { a: { type: 'string', maxLength: 4 } },
    };
    return ((item.properties as Json).opts as Json).properties as Json;
  });
  m('oldself', 'optionalOldSelf with oldSelf on an atomic list item', (c) =>
    withRule(c, { rule: 'oldSelf.hasValue()', optionalOldSelf: true }, (x) => prop(x, 'tags').items as Json),
  );
  m('oldself', 'optionalOldSelf with oldSelf', (c) =>
    withRule(c, { rule: 'oldSelf.orValue("") == self.name', optionalOldSelf: true }),
  );
  m('oldself', 'oldSelf under an atomic map, deeper', (c) => {
    (prop(c, 'config').properties as Json).inner = {
      type: 'object',
      properties: { x: { type: 'string', maxLength: 4 } },
    };
    withRule(
      c,
      { ...rule },
      (x) => (((prop(x, 'config').properties as Json).inner as Json).properties as Json).x as Json,
    );
  });
}

function versions(m: Mutated, add: Add): void {
  const v = (what: string, fn: (c: Crd, vs: Json[]) => void): void =>
    m('versions', what, (c) => fn(c, c.spec.versions as Json[]));
  v('served missing', (_c, vs) => delete vs[0].served);
  v('storage missing', (_c, vs) => delete vs[0].storage);
  v('served false', (_c, vs) => (vs[0].served = false));
  v('served "true" (a string)', (_c, vs) => (vs[0].served = 'true'));
  const second = (vs: Json[], patch: Json = {}): void => {
    vs.push({ ...clone(vs[0]), name: 'v2', storage: false, ...patch });
  };
  v('two versions, one storage', (_c, vs) => second(vs));
  v('two versions, both storage', (_c, vs) => second(vs, { storage: true }));
  v('two versions, none storage', (_c, vs) => {
    second(vs);
    vs[0].storage = false;
  });
  v('two versions, same name', (_c, vs) => second(vs, { name: 'v1' }));
  v('two versions, the second without served', (_c, vs) => {
    second(vs);
    delete vs[1].served;
  });
  v('two versions, the second without schema', (_c, vs) => {
    second(vs);
    delete vs[1].schema;
  });
  v('no versions', (c) => (c.spec.versions = []));
  v('versions missing', (c) => delete c.spec.versions);
  v('version name upper case', (_c, vs) => (vs[0].name = 'V1'));
  v('version name starting with a digit', (_c, vs) => (vs[0].name = '1v'));
  v('version name v1alpha1', (_c, vs) => (vs[0].name = 'v1alpha1'));
  v('version name empty', (_c, vs) => (vs[0].name = ''));
  v('no schema', (_c, vs) => delete vs[0].schema);
  v('schema without openAPIV3Schema', (_c, vs) => (vs[0].schema = {}));
  v('deprecated with a warning', (_c, vs) => Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use v2' }));
  v('a warning without deprecated', (_c, vs) => Object.assign(vs[0], { deprecationWarning: 'use v2' }));
  v('an empty warning', (_c, vs) => Object.assign(vs[0], { deprecated: true, deprecationWarning: '' }));
  v('a warning of 257 characters', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'w'.repeat(257) }),
  );
  v('a warning of 256 characters', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'w'.repeat(256) }),
  );
  v('a warning with a bell character', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use\u0007v2' }),
  );
  v('a warning with a tab', (_c, vs) => Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use\tv2' }));
  v('a warning with a soft hyphen', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use\u00adv2' }),
  );
  v('a warning with a zero-width space', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use\u200bv2' }),
  );
  v('a warning with a line separator', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use\u2028v2' }),
  );
  v('a warning with an emoji', (_c, vs) =>
    Object.assign(vs[0], { deprecated: true, deprecationWarning: 'use v2 \u{1F680}' }),
  );
  v('identical per-version schemas', (_c, vs) => second(vs));
  v('different per-version schemas', (_c, vs) => {
    second(vs);
    ((vs[1].schema as Json).openAPIV3Schema as Json).description = 'v2';
  });
  v('preserveUnknownFields true', (c) => (c.spec.preserveUnknownFields = true));
  v('preserveUnknownFields false', (c) => (c.spec.preserveUnknownFields = false));
  // a v1beta1 CRD is not served by a 1.37 apiserver: the request is refused as a whole
  const beta = widget() as Json & { spec: Json };
  beta.apiVersion = 'apiextensions.k8s.io/v1beta1';
  add(
    'versions',
    'a v1beta1 CRD (POSTed to the v1 endpoint)',
    beta,
    'crdgen reads a v1beta1 CRD file as a v1beta1-era apiserver did, and writes its v1 CRD',
  );
}

function subresources(m: Mutated): void {
  const s = (what: string, fn: (c: Crd, sub: Json) => void): void =>
    m('subresources', what, (c) => fn(c, v0(c).subresources as Json));
  s('status null', (_c, sub) => (sub.status = null));
  s('status absent', (_c, sub) => delete sub.status);
  s('subresources null', (c) => (v0(c).subresources = null));
  s('subresources empty', (c) => (v0(c).subresources = {}));
  s('status a string', (_c, sub) => (sub.status = 'yes'));
  const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };
  s('scale valid', (_c, sub) => (sub.scale = { ...scale }));
  s('scale with labelSelectorPath', (_c, sub) => (sub.scale = { ...scale, labelSelectorPath: '.status.selector' }));
  s('scale labelSelectorPath outside', (_c, sub) => (sub.scale = { ...scale, labelSelectorPath: '.metadata.labels' }));
  s('scale specReplicasPath missing', (_c, sub) => (sub.scale = { statusReplicasPath: '.status.replicas' }));
  s('scale statusReplicasPath missing', (_c, sub) => (sub.scale = { specReplicasPath: '.spec.replicas' }));
  s(
    'scale specReplicasPath without the dot',
    (_c, sub) => (sub.scale = { ...scale, specReplicasPath: 'spec.replicas' }),
  );
  s(
    'scale specReplicasPath under status',
    (_c, sub) => (sub.scale = { ...scale, specReplicasPath: '.status.replicas' }),
  );
  s(
    'scale statusReplicasPath under spec',
    (_c, sub) => (sub.scale = { ...scale, statusReplicasPath: '.spec.replicas' }),
  );
  s('scale specReplicasPath ".spec."', (_c, sub) => (sub.scale = { ...scale, specReplicasPath: '.spec.' }));
  s('scale empty', (_c, sub) => (sub.scale = {}));
  const rootWith = (what: string, kv: Json): void =>
    s(`status enabled, root with ${what}`, (c) => void Object.assign(root(c), kv));
  rootWith('additionalProperties', { additionalProperties: { type: 'string' }, properties: undefined });
  rootWith('nullable false', { nullable: false });
  rootWith('anyOf', { anyOf: [{ required: ['spec'] }] });
  rootWith('allOf', { allOf: [{ required: ['spec'] }] });
  rootWith('x-kubernetes-validations', { 'x-kubernetes-validations': [{ rule: 'has(self.spec)' }] });
  rootWith('required', { required: ['spec'] });
  rootWith('description and title', { description: 'd', title: 't' });
  rootWith('maxProperties', { maxProperties: 5 });
  rootWith('x-kubernetes-preserve-unknown-fields', { 'x-kubernetes-preserve-unknown-fields': true });
  rootWith('type array', { type: 'array', items: { type: 'string' }, properties: undefined });
  s('status disabled, root with anyOf', (c, sub) => {
    delete sub.status;
    root(c).anyOf = [{ required: ['spec'] }];
  });
  s('status disabled, subresources empty, root maxProperties', (c, sub) => {
    delete sub.status;
    root(c).maxProperties = 5;
  });
  s('top-level subresources in v1', (c) => {
    c.spec.subresources = { status: {} };
  });
}

function junctorRules(m: Mutated): void {
  const rule = [{ rule: 'true' }];
  for (const p of ALL_POSITIONS)
    m(
      'junctor-rules',
      `x-kubernetes-validations at ${p}`,
      (c) => void (POSITIONS[p](c)['x-kubernetes-validations'] = rule),
    );
  m(
    'junctor-rules',
    'in the second allOf entry',
    (c) => void (specNode(c).allOf = [{ required: ['name'] }, { 'x-kubernetes-validations': rule }]),
  );
  m(
    'junctor-rules',
    'in not.items',
    (c) => void (prop(c, 'tags').not = { items: { 'x-kubernetes-validations': rule } }),
  );
  m('junctor-rules', 'in allOf at the root', (c) => void (root(c).allOf = [{ 'x-kubernetes-validations': rule }]));
  m(
    'junctor-rules',
    'in anyOf.properties',
    (c) => void (specNode(c).anyOf = [{ properties: { name: { 'x-kubernetes-validations': rule } } }]),
  );
  m(
    'junctor-rules',
    'in oneOf.additionalProperties',
    (c) => void (prop(c, 'labels').oneOf = [{ additionalProperties: { 'x-kubernetes-validations': rule } }]),
  );
  m('junctor-rules', 'empty list in allOf', (c) => void (specNode(c).allOf = [{ 'x-kubernetes-validations': [] }]));
  // the other keys a value validation must not have
  const keys: [string, unknown][] = [
    ['type', 'string'],
    ['additionalProperties', { type: 'string' }],
    ['default', 'x'],
    ['title', 't'],
    ['description', 'd'],
    ['nullable', true],
    ['nullable false', false],
    ['x-kubernetes-preserve-unknown-fields', true],
    ['x-kubernetes-embedded-resource', true],
    ['x-kubernetes-int-or-string', true],
    ['x-kubernetes-list-map-keys', ['a']],
    ['x-kubernetes-list-type', 'atomic'],
    ['x-kubernetes-map-type', 'atomic'],
    ['properties.metadata', { metadata: {} }],
  ];
  for (const j of ['allOf', 'anyOf', 'oneOf', 'not']) {
    for (const [k, v] of keys) {
      m('junctor-rules', `${k} in ${j}`, (c) => {
        const node = POSITIONS[j](c);
        if (k === 'nullable false') node.nullable = false;
        else if (k === 'properties.metadata') node.properties = v;
        else node[k] = v;
      });
    }
  }
}

function structural(m: Mutated): void {
  const s = (what: string, fn: (c: Crd) => unknown): void => m('structural', what, fn);
  s('a property without a type', (c) => void delete prop(c, 'name').type);
  s('items without a type', (c) => void delete (prop(c, 'tags').items as Json).type);
  s('array without items', (c) => void delete prop(c, 'tags').items);
  s('items a list', (c) => void (prop(c, 'tags').items = [{ type: 'string' }]));
  s('items an empty list', (c) => void (prop(c, 'tags').items = []));
  s('type null', (c) => void (prop(c, 'name').type = 'null'));
  // an unknown type is refused, and its node has no CEL type: a rule elsewhere still compiles,
  // one that reads the node does not find the field
  s('a type typo beside a rule', (c) => {
    prop(c, 'name').type = 'strin';
    withRule(c, { rule: 'self.replicas >= 0' });
  });
  s('a type typo in a field a rule reads', (c) => {
    prop(c, 'name').type = 'strin';
    withRule(c, { rule: "self.name != 'x'" });
  });
  s('type a typo', (c) => void (prop(c, 'name').type = 'strin'));
  s('type a list', (c) => void (prop(c, 'name').type = ['string']));
  s('root type string', (c) => void Object.assign(root(c), { type: 'string', properties: undefined }));
  s('root without type', (c) => void delete root(c).type);
  s('root nullable', (c) => void (root(c).nullable = true));
  s('root additionalProperties', (c) => {
    delete v0(c).subresources;
    root(c).additionalProperties = { type: 'string' };
    delete root(c).properties;
  });
  s('additionalProperties and properties', (c) => void (specNode(c).additionalProperties = { type: 'string' }));
  s('additionalProperties false with properties', (c) => void (specNode(c).additionalProperties = false));
  s('additionalProperties true with properties', (c) => void (specNode(c).additionalProperties = true));
  s('additionalProperties false alone', (c) => void (prop(c, 'labels').additionalProperties = false));
  s('patternProperties', (c) => void (prop(c, 'labels').patternProperties = { '^a': { type: 'string' } }));
  s('definitions', (c) => void (specNode(c).definitions = { a: { type: 'string' } }));
  s('dependencies', (c) => void (specNode(c).dependencies = { name: ['mode'] }));
  s('additionalItems', (c) => void (prop(c, 'tags').additionalItems = false));
  s('$ref', (c) => void (prop(c, 'name').$ref = '#/definitions/a'));
  s('id', (c) => void (prop(c, 'name').id = 'x'));
  s('uniqueItems true', (c) => void (prop(c, 'tags').uniqueItems = true));
  s('uniqueItems false', (c) => void (prop(c, 'tags').uniqueItems = false));
  s(
    'x-kubernetes-preserve-unknown-fields false',
    (c) => void (specNode(c)['x-kubernetes-preserve-unknown-fields'] = false),
  );
  s(
    'int-or-string with preserve-unknown-fields',
    (c) => void (prop(c, 'size')['x-kubernetes-preserve-unknown-fields'] = true),
  );
  s('int-or-string with a type', (c) => void (prop(c, 'size').type = 'string'));
  s('int-or-string without anyOf', (c) => void delete prop(c, 'size').anyOf);
  s('int-or-string with allOf', (c) => {
    delete prop(c, 'size').anyOf;
    prop(c, 'size').allOf = [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }];
  });
  s(
    'embedded resource without properties nor preserve',
    (c) => void delete prop(c, 'template')['x-kubernetes-preserve-unknown-fields'],
  );
  s('embedded resource of type string', (c) => void (prop(c, 'template').type = 'string'));
  s(
    'embedded resource with additionalProperties',
    (c) => void (prop(c, 'template').additionalProperties = { type: 'string' }),
  );
  s(
    'embedded resource with kind of type integer',
    (c) => void (prop(c, 'template').properties = { kind: { type: 'integer' } }),
  );
  s('embedded resource inside metadata', (c) => {
    (root(c).properties as Json).metadata = {
      type: 'object',
      properties: { name: { type: 'string', 'x-kubernetes-embedded-resource': true } },
    };
  });
  s(
    'metadata with a label property',
    (c) =>
      void ((root(c).properties as Json).metadata = { type: 'object', properties: { labels: { type: 'object' } } }),
  );
  s('metadata with name and generateName', (c) => {
    (root(c).properties as Json).metadata = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } },
    };
  });
  s('metadata of type string', (c) => void ((root(c).properties as Json).metadata = { type: 'string' }));
  s('kind of type integer at the root', (c) => void ((root(c).properties as Json).kind = { type: 'integer' }));
  s(
    'apiVersion of type string at the root',
    (c) => void ((root(c).properties as Json).apiVersion = { type: 'string' }),
  );
  s('list-type on an object', (c) => void (specNode(c)['x-kubernetes-list-type'] = 'atomic'));
  s('list-type bogus', (c) => void (prop(c, 'tags')['x-kubernetes-list-type'] = 'bag'));
  s('list-type map without keys', (c) => void delete prop(c, 'ports')['x-kubernetes-list-map-keys']);
  s('list-map keys without list-type', (c) => void (prop(c, 'tags')['x-kubernetes-list-map-keys'] = ['a']));
  s('list-map keys not properties', (c) => void (prop(c, 'ports')['x-kubernetes-list-map-keys'] = ['nosuch']));
  s('list-map keys duplicate', (c) => void (prop(c, 'ports')['x-kubernetes-list-map-keys'] = ['port', 'port']));
  s('list-map key not required, no default', (c) => void ((prop(c, 'ports').items as Json).required = []));
  s('list-map key not required, with default', (c) => {
    (prop(c, 'ports').items as Json).required = [];
    (((prop(c, 'ports').items as Json).properties as Json).port as Json).default = 80;
  });
  s(
    'list-map key nullable',
    (c) => void ((((prop(c, 'ports').items as Json).properties as Json).port as Json).nullable = true),
  );
  s('list-map items nullable', (c) => void ((prop(c, 'ports').items as Json).nullable = true));
  s('list-map key an object', (c) => {
    (((prop(c, 'ports').items as Json).properties as Json).port as Json).type = 'object';
  });
  s(
    'list-map items a string',
    (c) =>
      void Object.assign(prop(c, 'ports').items as Json, {
        type: 'string',
        properties: undefined,
        required: undefined,
      }),
  );
  s('set of granular objects', (c) =>
    Object.assign(prop(c, 'ports'), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': undefined }),
  );
  s('set of atomic objects', (c) => {
    Object.assign(prop(c, 'ports'), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': undefined });
    (prop(c, 'ports').items as Json)['x-kubernetes-map-type'] = 'atomic';
  });
  s('set of sets', (c) => {
    prop(c, 'matrix')['x-kubernetes-list-type'] = 'set';
    (prop(c, 'matrix').items as Json)['x-kubernetes-list-type'] = 'set';
  });
  s('set of nullable items', (c) => {
    prop(c, 'tags')['x-kubernetes-list-type'] = 'set';
    (prop(c, 'tags').items as Json).nullable = true;
  });
  s('map-type on an array', (c) => void (prop(c, 'tags')['x-kubernetes-map-type'] = 'atomic'));
  s('map-type bogus', (c) => void (prop(c, 'config')['x-kubernetes-map-type'] = 'bogus'));
  s('map-type without type', (c) => void delete prop(c, 'config').type);
  s(
    'anyOf naming a property the schema lacks',
    (c) => void (specNode(c).anyOf = [{ properties: { nosuch: { minLength: 1 } } }]),
  );
  s('anyOf naming items the schema lacks', (c) => void (prop(c, 'name').anyOf = [{ items: { minLength: 1 } }]));
  s('allOf with a required list', (c) => void (specNode(c).allOf = [{ required: ['name'] }]));
  s('oneOf with known properties', (c) => void (specNode(c).oneOf = [{ required: ['name'] }, { required: ['mode'] }]));
  s('not with a pattern', (c) => void (prop(c, 'name').not = { pattern: '^x' }));
  s('nullable on a property', (c) => void (prop(c, 'name').nullable = true));
  s('$schema at a property', (c) => void (prop(c, 'name').$schema = 'http://json-schema.org/draft-04/schema#'));
  s('example of any shape', (c) => void (prop(c, 'name').example = { any: [1, 'x'] }));
  s('externalDocs', (c) => void (prop(c, 'name').externalDocs = { description: 'd', url: 'https://example.com' }));
}

function conversion(m: Mutated): void {
  const webhook = (cc: Json | undefined, extra: Json = {}): Json => ({
    strategy: 'Webhook',
    ...(cc ? { webhook: { clientConfig: cc, conversionReviewVersions: ['v1'], ...extra } } : {}),
  });
  const k = (what: string, conv: Json | undefined): void =>
    m('conversion', what, (c) => {
      c.spec.conversion = conv;
      if (conv === undefined) delete c.spec.conversion;
    });
  const svc = { service: { namespace: 'ns', name: 'conv', path: '/convert', port: 443 } };
  k('None', { strategy: 'None' });
  k('strategy missing', {});
  k('strategy typo', { strategy: 'Webhok' });
  k('Webhook without webhook', { strategy: 'Webhook' });
  k('Webhook without clientConfig', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } });
  k('Webhook without conversionReviewVersions', { strategy: 'Webhook', webhook: { clientConfig: svc } });
  k('Webhook with a service', webhook(svc));
  k('Webhook with an https URL', webhook({ url: 'https://conv.example.com/convert' }));
  k('Webhook with an http URL', webhook({ url: 'http://conv.example.com/convert' }));
  k('Webhook with a URL with a query', webhook({ url: 'https://conv.example.com/convert?x=1' }));
  k('Webhook with a URL with a fragment', webhook({ url: 'https://conv.example.com/convert#x' }));
  k('Webhook with a URL with user info', webhook({ url: 'https://u:p@conv.example.com/convert' }));
  k('Webhook with a URL without host', webhook({ url: 'https:///convert' }));
  k('Webhook with a relative URL', webhook({ url: '/convert' }));
  k('Webhook with an empty URL', webhook({ url: '' }));
  k('Webhook with both url and service', webhook({ ...svc, url: 'https://conv.example.com/convert' }));
  k('Webhook with neither url nor service', webhook({}));
  const port = (p: unknown): Json => ({ service: { ...svc.service, port: p } });
  k('Webhook service port 0', webhook(port(0)));
  k('Webhook service port 65536', webhook(port(65536)));
  k('Webhook service port -1', webhook(port(-1)));
  k('Webhook service without namespace', webhook({ service: { name: 'conv' } }));
  k('Webhook service without name', webhook({ service: { namespace: 'ns' } }));
  k('Webhook service name invalid', webhook({ service: { namespace: 'ns', name: 'Conv_1' } }));
  k('Webhook service namespace invalid', webhook({ service: { namespace: 'NS', name: 'conv' } }));
  k('Webhook service path without a slash', webhook({ service: { ...svc.service, path: 'convert' } }));
  k('Webhook service path with a query', webhook({ service: { ...svc.service, path: '/convert?x' } }));
  k('Webhook service path with //', webhook({ service: { ...svc.service, path: '/a//b' } }));
  k('Webhook service path with a dot segment', webhook({ service: { ...svc.service, path: '/a/./b' } }));
  k('review versions [v2]', webhook(svc, { conversionReviewVersions: ['v2'] }));
  k('review versions [v1beta1]', webhook(svc, { conversionReviewVersions: ['v1beta1'] }));
  k('review versions [v1, v1]', webhook(svc, { conversionReviewVersions: ['v1', 'v1'] }));
  k('review versions []', webhook(svc, { conversionReviewVersions: [] }));
  k('review versions [V1]', webhook(svc, { conversionReviewVersions: ['V1'] }));
  k('review versions [v2, v1]', webhook(svc, { conversionReviewVersions: ['v2', 'v1'] }));
  k('caBundle not base64', webhook({ ...svc, caBundle: 'not base64!' }));
  k('caBundle base64 but not PEM', webhook({ ...svc, caBundle: Buffer.from('hello').toString('base64') }));
  k('None with a webhook', { strategy: 'None', webhook: { clientConfig: svc, conversionReviewVersions: ['v1'] } });
  k('None with review versions', { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } });
  k('v1beta1 fields in v1: webhookClientConfig', {
    strategy: 'Webhook',
    webhookClientConfig: svc,
    conversionReviewVersions: ['v1'],
  });
  m('conversion', 'Webhook with preserveUnknownFields true', (c) => {
    c.spec.preserveUnknownFields = true;
    c.spec.conversion = webhook(svc);
  });
}

/** Patterns Go's RE2 refuses or accepts where JavaScript differs; the re2 work owns the engine. */
export const PATTERNS = [
  '(?<=a)b',
  '(?<!a)b',
  'a(?=b)',
  'a(?!b)',
  '(a)\\1',
  'a{1001}',
  'a{1000}',
  '(a{500}){3}',
  '[[:foo:]]',
  '[[:alpha:]]',
  '\\p{Foo}',
  '\\p{Greek}',
  '\\pL',
  '(?i)abc',
  '(?P<name>x)',
  '(?<name>x)',
  '\\Z',
  '\\z',
  'a**',
  'a++',
  'x{2}{3}',
  '\\8',
  '[a-',
  '(',
  ')',
  '\\Q.*\\E',
  '\\C',
  '[z-a]',
  '\\b',
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  '(?s).',
  '(?U)a+',
  '\\x{10FFFF}',
  '\\x{110000}',
  '\\u0041',
  '[\\d-z]',
  '(?m)^a$',
  'a{,3}',
  '\\/',
  '\\-',
  '\\k<n>',
];

function patterns(m: Mutated): void {
  PATTERNS.forEach((p, i) => {
    m('pattern', `pattern #${i} ${JSON.stringify(p)}`, (c) => void (prop(c, 'name').pattern = p));
    m('pattern', `matches() #${i} ${JSON.stringify(p)}`, (c) =>
      withRule(c, { rule: `self.name.matches(${JSON.stringify(p)})` }),
    );
  });
  m('pattern', 'matches() on a non-constant pattern', (c) => withRule(c, { rule: 'self.name.matches(self.mode)' }));
  m('pattern', 'find() with a lookahead', (c) => withRule(c, { rule: 'self.name.find("a(?=b)") == ""' }));
  m('pattern', 'findAll() with a bad class', (c) =>
    withRule(c, { rule: 'self.name.findAll("[[:foo:]]").size() == 0' }),
  );
}

function ruleEntries(m: Mutated): void {
  const r = (what: string, rule: Json, where?: (c: Crd) => Json): void =>
    m('rule-entries', what, (c) => withRule(c, rule, where));
  const base = { rule: 'self.replicas >= 0' };
  r('fieldPath to a property', { ...base, fieldPath: '.replicas' });
  r('fieldPath to a missing property', { ...base, fieldPath: '.nosuch' });
  r('fieldPath with an index', { ...base, fieldPath: '.tags[0]' });
  r('fieldPath with a map key', { ...base, fieldPath: ".labels['a']" });
  r('fieldPath into a map value', { ...base, fieldPath: '.labels.a' });
  r('fieldPath into a list-map item property', { ...base, fieldPath: '.ports.port' });
  r('fieldPath to a nested property', { ...base, fieldPath: '.config.level' });
  r('fieldPath without a dot', { ...base, fieldPath: 'replicas' });
  r('fieldPath with spaces', { ...base, fieldPath: '  ' });
  r('fieldPath with a line break', { ...base, fieldPath: '.replicas\n' });
  r('fieldPath with double dots', { ...base, fieldPath: '..replicas' });
  r('fieldPath into preserve-unknown-fields', { ...base, fieldPath: '.extra.anything' });
  r('fieldPath empty', { ...base, fieldPath: '' });
  for (const reason of [
    '',
    'FieldValueInvalid',
    'FieldValueForbidden',
    'FieldValueRequired',
    'FieldValueDuplicate',
    'FieldValueNotFound',
    'Bogus',
  ])
    r(`reason ${JSON.stringify(reason)}`, { ...base, reason });
  r('optionalOldSelf true without oldSelf', { ...base, optionalOldSelf: true });
  r('optionalOldSelf false without oldSelf', { ...base, optionalOldSelf: false });
  r('message empty', { ...base, message: '' });
  r('message blank', { ...base, message: '   ' });
  r('message with a line break', { ...base, message: 'a\nb' });
  r('rule with a line break, no message', { rule: 'self.replicas >= 0 &&\n self.replicas < 10' });
  r('rule with a line break, a message', { rule: 'self.replicas >= 0 &&\n self.replicas < 10', message: 'm' });
  r('rule blank', { rule: '  ' });
  r('rule empty', { rule: '' });
  r('rule missing', { message: 'm' });
  r('rule not boolean', { rule: 'self.replicas' });
  r('messageExpression a string', { ...base, messageExpression: "'replicas: ' + string(self.replicas)" });
  r('messageExpression an int', { ...base, messageExpression: 'self.replicas' });
  r('messageExpression blank', { ...base, messageExpression: '  ' });
  r('messageExpression not compiling', { ...base, messageExpression: "'a' +" });
  r('messageExpression with a line break', { ...base, messageExpression: "'a' +\n 'b'" });
  r('messageExpression expensive', {
    ...base,
    messageExpression: "self.extra.all(k, self.extra.all(j, true)) ? 'a' : 'b'",
  });
  r('messageExpression using oldSelf', { ...base, messageExpression: "'was ' + string(oldSelf.replicas)" });
  // functions: what a 1.37 apiserver offers to new rules
  const fns = [
    "quantity('1').sign() == 1",
    "quantity('1').isInteger()",
    "['a'].includes('a')",
    "sets.contains(['a'], ['a'])",
    '[1, 2].sum() == 3',
    '[1, 2].min() == 1',
    '[2, 1].sort() == [1, 2]',
    '[1, 1].distinct() == [1]',
    '[[1], [2]].flatten() == [1, 2]',
    'lists.range(3) == [0, 1, 2]',
    "['a', 'b'].join(',') == 'a,b'",
    "'a'.reverse() == 'a'",
    "'%s'.format(['a']) == 'a'",
    "strings.quote('a') == '\"a\"'",
    'math.greatest(1, 2) == 2',
    "base64.encode(b'a') == 'YQ=='",
    '[1].slice(0, 1) == [1]',
    '[1, 2].indexOf(2) == 1',
    '[1, 2].lastIndexOf(2) == 1',
    '[1, 2].isSorted()',
    "isSemver('1.0.0')",
    "semver('1.0.0').major() == 1",
    "isURL('https://a')",
    "url('https://a').getHost() == 'a'",
    "ip('1.2.3.4').family() == 4",
    "cidr('1.2.3.0/24').prefixLength() == 24",
    "format.dns1123Label().validate('a').hasValue() == false",
    'optional.of(1).hasValue()',
    "self.?name.orValue('') == ''",
    '[1, 2].all(i, v, v > 0)',
    "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
    "authorizer.path('/a').check('get').allowed()",
    "'abc'.charAt(0) == 'a'",
    "'a-b'.split('-') == ['a', 'b']",
    "'a'.upperAscii() == 'A'",
    "'abc'.lastIndexOf('c') == 2",
    "duration('1s') < duration('2s')",
    "timestamp('2020-01-01T00:00:00Z').getFullYear() == 2020",
    "bytes('a').size() == 1",
    'dyn(1) == 1',
    'type(1) == int',
    'cel.bind(x, 1, x == 1)',
    "'x'.matches('^x$')",
    '[1, 2].exists_one(x, x == 1)',
    "quantity('1Gi').compareTo(quantity('1G')) > 0",
    "quantity('1').asInteger() == 1",
    "quantity('1').add(1).isGreaterThan(quantity('1'))",
  ];
  fns.forEach((f, i) => r(`function #${i} ${f}`, { rule: f }));
  // join and distinct on unbounded lists; messageExpression cost; CEL costs per entry
  m('rule-entries', 'join on an unbounded list', (c) => {
    prop(c, 'extra').properties = undefined;
    (specNode(c).properties as Json).free = { type: 'array', items: { type: 'string' } };
    withRule(c, { rule: "self.free.join(',').size() < 100" });
  });
  m('rule-entries', 'distinct on an unbounded list', (c) => {
    (specNode(c).properties as Json).free = { type: 'array', items: { type: 'string' } };
    withRule(c, { rule: 'self.free.distinct().size() == self.free.size()' });
  });
  m('rule-entries', 'distinct on a bounded list', (c) =>
    withRule(c, { rule: 'self.tags.distinct().size() == self.tags.size()' }),
  );
  m('rule-entries', 'join on a bounded list', (c) => withRule(c, { rule: "self.tags.join(',').size() < 600" }));
  m('rule-entries', 'messageExpression cost over the limit', (c) => {
    (specNode(c).properties as Json).free = { type: 'array', items: { type: 'string' } };
    withRule(c, {
      rule: 'true',
      messageExpression: "self.free.map(a, self.free.map(b, a + b)).size() > 0 ? 'x' : 'y'",
    });
  });
}

function costs(m: Mutated): void {
  const free = (c: Crd, bounded: Json = {}): void => {
    (specNode(c).properties as Json).free = { type: 'array', items: { type: 'string', ...bounded }, ...bounded };
    (specNode(c).properties as Json).freeMap = { type: 'object', additionalProperties: { type: 'string' } };
  };
  const r = (what: string, rule: string, bounded?: Json, where?: (c: Crd) => Json): void =>
    m('cost', what, (c) => {
      free(c, bounded);
      withRule(c, { rule }, where);
    });
  r('nested all on unbounded lists', 'self.free.all(a, self.free.all(b, a != b))');
  r('nested all on bounded lists', 'self.free.all(a, self.free.all(b, a != b))', { maxItems: 10, maxLength: 10 });
  r('nested all on the bounded tags', 'self.tags.all(a, self.tags.all(b, a == b || a != b))');
  r('triple nested all on bounded lists', 'self.tags.all(a, self.tags.all(b, self.tags.all(c, a + b + c != "")))');
  r('map over unbounded list of strings', "self.free.map(a, a + 'x').size() > 0");
  r('string concatenation of unbounded strings', 'self.free.all(a, (a + a + a + a).size() > 0)');
  r('matches on unbounded strings', "self.free.all(a, a.matches('^[a-z]+$'))");
  r('exists on unbounded map', "self.freeMap.exists(k, self.freeMap[k] == 'x')");
  r('nested exists on unbounded map', 'self.freeMap.exists(k, self.freeMap.exists(j, k != j))');
  r('== on two unbounded lists', 'self.free == self.free');
  r('== on ip', "self.free.all(a, ip('10.0.0.1') == ip('10.0.0.1'))");
  r('== on quantity', "self.free.all(a, quantity('1') == quantity('1'))");
  r('type(ip) == net.IP', "type(ip('192.168.0.1')) == net.IP");
  r('== on cidr', "cidr('10.0.0.0/8') == cidr('10.0.0.0/8')");
  r('== on optional', 'optional.of(1) == optional.of(1)');
  r('== on a format', 'format.dns1123Label() == format.dns1123Label()');
  r('== on a semver', "semver('1.0.0') == semver('1.0.0')");
  r('== on an url', "url('https://a') == url('https://a')");
  r('sort on unbounded list', 'self.free.sort().size() >= 0');
  r('split of unbounded strings', "self.free.all(a, a.split(',').size() > 0)");
  r('replace on unbounded strings', "self.free.all(a, a.replace('a', 'bb').size() > 0)");
  r('lowerAscii in nested all', 'self.free.all(a, self.free.all(b, a.lowerAscii() == b.lowerAscii()))');
  r('sets.contains on unbounded lists', 'sets.contains(self.free, self.free)');
  r(
    'rule under unbounded items',
    'self.all(x, x.size() > 0)',
    undefined,
    (c) => (specNode(c).properties as Json).free as Json,
  );
  r('a costly rule under unbounded items of unbounded items', 'self.all(a, self.all(b, a != b))', undefined, (c) => {
    (specNode(c).properties as Json).grid = { type: 'array', items: { type: 'array', items: { type: 'string' } } };
    return ((specNode(c).properties as Json).grid as Json).items as Json;
  });
  m('cost', 'total cost over the CRD limit', (c) => {
    free(c, { maxItems: 2000, maxLength: 100 });
    for (let i = 0; i < 20; i++) withRule(c, { rule: `self.free.all(a, self.free.all(b, a != b + '${i}'))` });
  });
  m('cost', 'many cheap rules', (c) => {
    for (let i = 0; i < 50; i++) withRule(c, { rule: `self.replicas != ${i}` });
  });
}

function selectableFields(m: Mutated): void {
  const f = (what: string, paths: string[]): void =>
    m('selectable-fields', what, (c) => void (v0(c).selectableFields = paths.map((jsonPath) => ({ jsonPath }))));
  f('a string', ['.spec.name']);
  f('an integer', ['.spec.replicas']);
  f('a boolean', ['.spec.enabled']);
  f('a number', ['.spec.ratio']);
  f('an enum', ['.spec.mode']);
  f('an object', ['.spec.config']);
  f('a list', ['.spec.tags']);
  f('int-or-string', ['.spec.size']);
  f('a missing path', ['.spec.nosuch']);
  f('array notation', ['.spec.tags[0]']);
  f('map notation', [".spec['name']"]);
  f('metadata.name', ['.metadata.name']);
  f('status', ['.status.ready']);
  f('without the dot', ['spec.name']);
  f('empty', ['']);
  f('duplicates', ['.spec.name', '.spec.name']);
  f('eight', [
    '.spec.name',
    '.spec.replicas',
    '.spec.enabled',
    '.spec.mode',
    '.status.ready',
    '.spec.config.level',
    '.spec.config.note',
    '.spec.size',
  ]);
  m('selectable-fields', 'nine', (c) => {
    (specNode(c).properties as Json).f9 = { type: 'string' };
    (specNode(c).properties as Json).f10 = { type: 'string' };
    v0(c).selectableFields = [
      '.spec.name',
      '.spec.replicas',
      '.spec.enabled',
      '.spec.mode',
      '.status.ready',
      '.spec.config.level',
      '.spec.config.note',
      '.spec.f9',
      '.spec.f10',
    ].map((jsonPath) => ({ jsonPath }));
  });
  m('selectable-fields', 'without a schema', (c) => {
    delete v0(c).schema;
    v0(c).selectableFields = [{ jsonPath: '.spec.name' }];
  });
  m(
    'selectable-fields',
    'a field under preserve-unknown-fields',
    (c) => void (v0(c).selectableFields = [{ jsonPath: '.spec.extra.x' }]),
  );
  m(
    'selectable-fields',
    'top-level selectableFields in v1',
    (c) => void (c.spec.selectableFields = [{ jsonPath: '.spec.name' }]),
  );
}

function crdMetadata(m: Mutated): void {
  const md = (what: string, fn: (meta: Json) => void): void => m('crd-metadata', what, (c) => fn(c.metadata));
  md('a valid label', (x) => (x.labels = { 'app.kubernetes.io/name': 'w' }));
  md('a label key with a space', (x) => (x.labels = { 'a b': 'w' }));
  md('a label value too long', (x) => (x.labels = { a: 'v'.repeat(64) }));
  md('a label value with a slash', (x) => (x.labels = { a: 'a/b' }));
  md('a label prefix invalid', (x) => (x.labels = { 'Ex_ample.com/a': 'b' }));
  md('a label a number', (x) => (x.labels = { a: 1 }));
  md('an annotation key invalid', (x) => (x.annotations = { 'a b': 'c' }));
  md('annotations over 256 KiB', (x) => (x.annotations = { a: 'x'.repeat(262145) }));
  md('an annotation empty key', (x) => (x.annotations = { '': 'x' }));
  md('a valid finalizer', (x) => (x.finalizers = ['example.com/cleanup']));
  md('a finalizer without a slash', (x) => (x.finalizers = ['cleanup']));
  md('a finalizer invalid', (x) => (x.finalizers = ['example.com/clean up']));
  md('a finalizer "kubernetes"', (x) => (x.finalizers = ['kubernetes']));
  md('duplicate finalizers', (x) => (x.finalizers = ['example.com/a', 'example.com/a']));
  const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: '5f0f5b5e-0000-4000-8000-000000000001' };
  md('a valid ownerReference', (x) => (x.ownerReferences = [owner]));
  md('an ownerReference without uid', (x) => (x.ownerReferences = [{ ...owner, uid: '' }]));
  md('an ownerReference without apiVersion', (x) => (x.ownerReferences = [{ ...owner, apiVersion: '' }]));
  md('an ownerReference without kind', (x) => (x.ownerReferences = [{ ...owner, kind: '' }]));
  md('an ownerReference without name', (x) => (x.ownerReferences = [{ ...owner, name: '' }]));
  md(
    'two controller ownerReferences',
    (x) =>
      (x.ownerReferences = [
        { ...owner, controller: true },
        { ...owner, uid: '5f0f5b5e-0000-4000-8000-000000000002', controller: true },
      ]),
  );
  md('a namespace on the CRD', (x) => (x.namespace = 'default'));
  md('generateName only', (x) => {
    delete x.name;
    x.generateName = 'widgets.';
  });
  md('name missing', (x) => delete x.name);
  md('name too long', (x) => (x.name = `${'a'.repeat(250)}.com`));
  md('resourceVersion set', (x) => (x.resourceVersion = '1'));
  md(
    'a managedFields entry',
    (x) => (x.managedFields = [{ manager: 'm', operation: 'Apply', apiVersion: 'apiextensions.k8s.io/v1' }]),
  );
  md('creationTimestamp a bad string', (x) => (x.creationTimestamp = 'yesterday'));
}

function printerColumns(m: Mutated): void {
  const col = (what: string, c: Json): void =>
    m(
      'printer-columns',
      what,
      (x) => void (v0(x).additionalPrinterColumns = [{ name: 'N', type: 'string', jsonPath: '.spec.name', ...c }]),
    );
  col('valid', {});
  col('type text', { type: 'text' });
  col('type missing', { type: undefined });
  col('format date-time on a date', { type: 'date', format: 'date-time' });
  col('format unknown', { format: 'uuid' });
  col('jsonPath without the dot', { jsonPath: 'spec.name' });
  col('jsonPath missing', { jsonPath: undefined });
  col('jsonPath "."', { jsonPath: '.' });
  col('jsonPath with brackets', { jsonPath: '.spec.tags[0]' });
  col('jsonPath to a missing field', { jsonPath: '.spec.nosuch' });
  col('name missing', { name: undefined });
  col('priority negative', { priority: -1 });
  col('description', { description: 'the name' });
  m(
    'printer-columns',
    'two columns with one name',
    (x) =>
      void (v0(x).additionalPrinterColumns = [
        { name: 'N', type: 'string', jsonPath: '.spec.name' },
        { name: 'N', type: 'integer', jsonPath: '.spec.replicas' },
      ]),
  );
  m(
    'printer-columns',
    'top-level columns in v1',
    (x) => void (x.spec.additionalPrinterColumns = [{ name: 'N', type: 'string', JSONPath: '.spec.name' }]),
  );
}

function misc(m: Mutated): void {
  m('misc', '$schema at the root', (c) => void (root(c).$schema = 'http://json-schema.org/draft-04/schema#'));
  m('misc', 'int32 overflow in a default', (c) => void (prop(c, 'replicas').default = 4294967296));
  m('misc', 'int("x") in a rule', (c) => withRule(c, { rule: 'int("x") == 1' }));
  m('misc', 'int("1") in a rule', (c) => withRule(c, { rule: 'int("1") == 1' }));
  m('misc', 'duration("x") in a rule', (c) => withRule(c, { rule: 'duration("x") > duration("1s")' }));
  m('misc', 'timestamp("x") in a rule', (c) =>
    withRule(c, { rule: 'timestamp("x") > timestamp("2020-01-01T00:00:00Z")' }),
  );
  m('misc', 'a list literal of mixed types', (c) => withRule(c, { rule: "[1, 'a'].size() == 2" }));
  m('misc', 'an unknown function', (c) => withRule(c, { rule: 'nosuch(self.name)' }));
  m('misc', 'an unknown field in a rule', (c) => withRule(c, { rule: 'self.nosuch == 1' }));
  m('misc', 'a reserved word as a field', (c) => {
    (specNode(c).properties as Json).namespace = { type: 'string' };
    withRule(c, { rule: "self.namespace == 'a'" });
  });
  m('misc', 'an escaped field name', (c) => {
    (specNode(c).properties as Json)['a-b'] = { type: 'string' };
    withRule(c, { rule: "self.a__dash__b == 'a'" });
  });
  m('misc', 'a rule on metadata.name', (c) => withRule(c, { rule: 'self.metadata.name.size() < 10' }, root));
  m('misc', 'a rule on metadata.labels', (c) => withRule(c, { rule: 'has(self.metadata.labels)' }, root));
  m('misc', 'a rule of a rule on the status', (c) =>
    withRule(c, { rule: 'self.ready' }, (x) => (root(x).properties as Json).status as Json),
  );
  m('misc', 'a rule on int-or-string', (c) =>
    withRule(c, { rule: 'type(self) == int || type(self) == string' }, (x) => prop(x, 'size')),
  );
  m('misc', 'a rule on an embedded resource', (c) =>
    withRule(c, { rule: "self.kind != ''" }, (x) => prop(x, 'template')),
  );
  m('misc', 'a rule comparing int and double', (c) => withRule(c, { rule: 'self.replicas < self.ratio' }));
  m('misc', 'a rule using has() on a map', (c) => withRule(c, { rule: 'has(self.labels.a) || !has(self.labels.a)' }));
}

/** Bodies that are not a JSON object written by JSON.stringify: duplicate members, `1.0`, not JSON. */
function rawBodies(add: Add): void {
  const text = toJson(widget());
  add(
    'unknown-keys',
    'a duplicate member in the schema',
    text.replace('"maxLength":63', '"maxLength":63,"maxLength":64'),
  );
  add(
    'unknown-keys',
    'a duplicate member at the top',
    text.replace(
      '"kind":"CustomResourceDefinition"',
      '"kind":"CustomResourceDefinition","kind":"CustomResourceDefinition"',
    ),
  );
  add(
    'unknown-keys',
    'a duplicate property name',
    text.replace('"ratio":{"type":"number"}', '"ratio":{"type":"number"},"ratio":{"type":"integer"}'),
  );
  add('defaults', '1.0 for an integer', text.replace('"minimum":0}', '"minimum":0,"default":1.0}'));
  add('defaults', '1e3 for an integer', text.replace('"minimum":0}', '"minimum":0,"default":1e3}'));
  add('bounds', 'maxLength 5.0', text.replace('"maxLength":63', '"maxLength":5.0'));
  add('misc', 'a JSON body that is a list', '[]');
  add('misc', 'a body that is not JSON', text.slice(0, -1));
  add('misc', 'a JSON body with a trailing comma', text.replace('"served":true,', '"served":true,,'));
}

// ---------------------------------------------------------------------------------------------
// The corpus

/** Every apiextensions.k8s.io/v1 CRD of the corpus, sorted by file and order. */
export function corpusCrds(): { name: string; crd: Json }[] {
  const out: { name: string; crd: Json }[] = [];
  for (const file of yamlFiles(CORPUS)) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const v = doc.toJSON() as Json | null;
      if (v?.apiVersion === 'apiextensions.k8s.io/v1' && v.kind === 'CustomResourceDefinition')
        out.push({ name: `${relative(CORPUS, file)}#${String((v.metadata as Json)?.name)}`, crd: v });
    }
  }
  return out;
}

interface Located {
  node: Json;
  /** Path from the schema root (for the case id). */
  path: string;
  /** Under items or additionalProperties (the decoder is lenient there). */
  lenient: boolean;
  /** Inside a junctor. */
  inJunctor: boolean;
}

/** Every schema node under `schema`, in a deterministic order. */
function schemaNodes(schema: Json): Located[] {
  const out: Located[] = [];
  const walk = (n: unknown, path: string, lenient: boolean, inJunctor: boolean): void => {
    if (n === null || typeof n !== 'object' || Array.isArray(n)) return;
    const node = n as Json;
    out.push({ node, path, lenient, inJunctor });
    if (node.properties && typeof node.properties === 'object')
      for (const k of Object.keys(node.properties))
        walk((node.properties as Json)[k], `${path}.properties.${k}`, lenient, inJunctor);
    if (node.items) walk(node.items, `${path}.items`, true, inJunctor);
    if (node.additionalProperties && typeof node.additionalProperties === 'object')
      walk(node.additionalProperties, `${path}.additionalProperties`, true, inJunctor);
    for (const j of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(node[j]))
        (node[j] as unknown[]).forEach((x, i) => walk(x, `${path}.${j}[${i}]`, lenient, true));
    if (node.not) walk(node.not, `${path}.not`, lenient, true);
  };
  walk(schema, 'openAPIV3Schema', false, false);
  return out;
}

function corpus(add: Add): void {
  const rnd = prng(SEED);
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)];
  for (const { name, crd } of corpusCrds()) {
    add('corpus', name, crd);
    const mut = (what: string, fn: (c: Json & { spec: Json }) => string | false): void => {
      const c = clone(crd) as Json & { spec: Json };
      const where = fn(c);
      if (where !== false) add('corpus-mutation', `${name} ${what}${where ? ` at ${where}` : ''}`, c);
    };
    const schemaOf = (c: Json & { spec: Json }): Json | undefined =>
      ((c.spec.versions as Json[])[0]?.schema as Json | undefined)?.openAPIV3Schema as Json | undefined;
    const nodes = (c: Json & { spec: Json }, f: (l: Located) => boolean): Located[] => {
      const s = schemaOf(c);
      return s ? schemaNodes(s).filter(f) : [];
    };
    mut('an unknown key', (c) => {
      const l = nodes(c, (x) => !x.lenient);
      if (l.length === 0) return false;
      const at = pick(l);
      at.node.minimun = 1;
      return at.path;
    });
    mut('an unknown key under items or additionalProperties', (c) => {
      const l = nodes(c, (x) => x.lenient);
      if (l.length === 0) return false;
      const at = pick(l);
      at.node.fooBar = 1;
      return at.path;
    });
    mut('a rule in allOf', (c) => {
      const l = nodes(c, (x) => !x.inJunctor && x.node.type === 'object' && x.path !== 'openAPIV3Schema');
      if (l.length === 0) return false;
      const at = pick(l);
      at.node.allOf = [...((at.node.allOf as unknown[]) ?? []), { 'x-kubernetes-validations': [{ rule: 'true' }] }];
      return at.path;
    });
    mut('a negative maxLength', (c) => {
      const l = nodes(c, (x) => !x.inJunctor && x.node.type === 'string');
      if (l.length === 0) return false;
      const at = pick(l);
      at.node.maxLength = -1;
      return at.path;
    });
    mut('a default of the wrong type', (c) => {
      const l = nodes(
        c,
        (x) =>
          !x.inJunctor && (x.node.type === 'integer' || x.node.type === 'boolean') && !x.path.includes('.metadata'),
      );
      if (l.length === 0) return false;
      const at = pick(l);
      at.node.default = 'x';
      return at.path;
    });
    mut('an oldSelf rule', (c) => {
      const l = nodes(
        c,
        (x) => !x.inJunctor && typeof x.node.type === 'string' && x.path.startsWith('openAPIV3Schema.properties.spec'),
      );
      if (l.length === 0) return false;
      const at = pick(l);
      at.node['x-kubernetes-validations'] = [
        ...((at.node['x-kubernetes-validations'] as unknown[]) ?? []),
        { rule: 'self == oldSelf', message: 'immutable' },
      ];
      return at.path;
    });
    mut('a lower-case kind', (c) => {
      const n = c.spec.names as Json;
      n.kind = String(n.kind).toLowerCase();
      if (typeof n.listKind === 'string') n.listKind = `${String(n.kind)}list`;
      return '';
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Kubernetes' CEL test tables

interface LibraryTest {
  source: string;
  test: string;
  name: string;
  expr: string;
  expect: { t: string };
}

function celLibrary(m: Mutated): void {
  const file = join(CEL_TABLES, 'k8s-library.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: the suite reads Kubernetes' CEL tables from there`);
  const tests = (JSON.parse(readFileSync(file, 'utf8')) as { tests: LibraryTest[] }).tests;
  const seen = new Map<string, number>();
  for (const t of tests) {
    const base = `${t.source.replace(/^pkg\/cel\/library\//, '')} ${t.test} ${t.name}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const id = n === 1 ? base : `${base} #${n}`;
    // a bool is the rule itself; any other value is compared with itself (its type's equality and cost)
    const rule = t.expect.t === 'bool' ? t.expr : `(${t.expr}) == (${t.expr})`;
    m('cel-library', id, (c) => withRule(c, { rule }));
  }
}

interface ValidationTest {
  test: string;
  name: string;
  schema: Json;
  isRoot?: boolean;
  valid?: string[];
  errors?: { rule: string }[];
  errorsAnyRule?: string[];
}

function celValidation(add: Add): void {
  const file = join(CEL_TABLES, 'k8s-validation.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: the suite reads Kubernetes' CEL tables from there`);
  const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases: ValidationTest[] }).cases;
  const seen = new Set<string>();
  for (const t of cases) {
    const rules = [...(t.valid ?? []), ...(t.errors ?? []).map((e) => e.rule)];
    const name = `${t.test} ${t.name}`;
    if (seen.has(name)) throw new Error(`duplicate table case ${name}`);
    seen.add(name);
    const crdWith = (rulesHere: Json[]): Json => {
      const c = widget();
      const v = v0(c);
      delete v.subresources;
      const schema = clone(t.schema);
      if (t.isRoot) {
        schema['x-kubernetes-validations'] = [...((schema['x-kubernetes-validations'] as Json[]) ?? []), ...rulesHere];
        (v.schema as Json).openAPIV3Schema = schema;
      } else {
        schema['x-kubernetes-validations'] = [...((schema['x-kubernetes-validations'] as Json[]) ?? []), ...rulesHere];
        (v.schema as Json).openAPIV3Schema = { type: 'object', properties: { spec: schema } };
      }
      return c;
    };
    if (rules.length === 0) add('cel-validation', `${name} (its schema's own rules)`, crdWith([]));
    rules.forEach((rule, i) => add('cel-validation', `${name} #${i}`, crdWith([{ rule }])));
  }
}

let memo: VerdictCase[] | undefined;

/** Every case, in a fixed order. */
export function verdictCases(): VerdictCase[] {
  return (memo ??= collect());
}
