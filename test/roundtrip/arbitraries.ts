// fast-check arbitraries for models the TypeScript format can express: every schema node
// type and facet, kinds with all their markers, several versions and groups.
import fc from 'fast-check';
import type { JsonObject, Kind, Model, SchemaNode, ValidationRule, Verb } from '../../src/model/types.js';
import { QUANTITY_PATTERN } from '../../src/input/ts/schema.js';
import { verbsOf } from '../../src/input/ts/verbs.js';
import { jsdocMarker } from '../../src/input/ts/comments.js';
import { compareKubeVersions } from '../../src/model/naming.js';

const text = fc.string({
  unit: fc.constantFrom(...'abcXYZ 019*/\\\'"`{}[]:;,=+.-_\t\néü中'.split('')),
  minLength: 1,
  maxLength: 24,
});
/**
 * Descriptions: anything but `*\/` written literally (the one escape JSDoc text has), and no line
 * that reads as a marker (`+a:b`): those are left out of a JSDoc description (TS014).
 */
const description = text.filter((s) => !s.includes('*\\/') && !s.split('\n').some((l) => jsdocMarker(l) !== undefined));
const nonEmpty = fc.string({ minLength: 1, maxLength: 16 });
const propName = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,5}$/);
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
const double = fc.double({ noNaN: true, noDefaultInfinity: true });

const rule: fc.Arbitrary<ValidationRule> = fc.record(
  {
    rule: nonEmpty,
    message: nonEmpty,
    messageExpression: nonEmpty,
    reason: fc.constantFrom('FieldValueInvalid', 'FieldValueRequired', 'FieldValueForbidden', 'FieldValueDuplicate'),
    fieldPath: nonEmpty,
    optionalOldSelf: fc.boolean(),
  },
  { requiredKeys: ['rule'] },
);

/** Facets every node may carry, with a default of the node's JSON type. */
function base(defaultValue: fc.Arbitrary<unknown>) {
  return {
    description: opt(description),
    nullable: opt(fc.constant(true as const)),
    validations: opt(fc.array(rule, { minLength: 1, maxLength: 2 })),
    default: opt(defaultValue),
  };
}

const leaf: fc.Arbitrary<SchemaNode> = fc.oneof(
  fc.record({
    type: fc.constant('string' as const),
    ...base(fc.string()),
    enum: opt(fc.uniqueArray(fc.string({ maxLength: 8 }), { maxLength: 3 })),
    format: opt(fc.constantFrom('date-time', 'hostname', 'byte', 'uri ref')),
    pattern: opt(nonEmpty),
    minLength: opt(fc.nat(100)),
    maxLength: opt(fc.nat(100)),
  }),
  fc.record({
    type: fc.constant('integer' as const),
    ...base(fc.integer()),
    format: opt(fc.constantFrom('int32' as const, 'int64' as const)),
    enum: opt(fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 3 })),
    minimum: opt(fc.integer()),
    maximum: opt(fc.integer()),
    exclusiveMinimum: opt(fc.boolean()),
    exclusiveMaximum: opt(fc.boolean()),
    multipleOf: opt(fc.integer({ min: 1, max: 100 })),
  }),
  fc.record({
    type: fc.constant('number' as const),
    ...base(double),
    format: opt(fc.constantFrom('double', 'float')),
    enum: opt(fc.uniqueArray(double, { minLength: 1, maxLength: 3 })),
    minimum: opt(double),
    maximum: opt(double),
    multipleOf: opt(fc.double({ min: 0.5, max: 10, noNaN: true })),
  }),
  fc.record({ type: fc.constant('boolean' as const), ...base(fc.boolean()) }),
  fc.record({
    type: fc.constant('int-or-string' as const),
    ...base(fc.oneof(fc.integer(), fc.string())),
    // IntOrString or Quantity, as the TypeScript reader writes them
    keywords: fc.constantFrom<JsonObject>(
      { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN },
    ),
  }),
  fc.record({
    type: fc.constant('unknown' as const),
    object: fc.constant(false),
    ...base(fc.jsonValue().filter((v) => v !== null)),
  }),
  fc.record({
    type: fc.constant('unknown' as const),
    object: fc.constant(true),
    ...base(fc.dictionary(propName, fc.jsonValue())),
  }),
);

const objectDefault = fc.dictionary(propName, fc.oneof(fc.integer(), fc.string()), { maxKeys: 2 });

const { node } = fc.letrec<{ node: SchemaNode; object: SchemaNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      type: fc.constant('array' as const),
      ...base(fc.array(fc.integer(), { maxLength: 2 })),
      items: tie('node'),
      minItems: opt(fc.nat(5)),
      maxItems: opt(fc.nat(5)),
      uniqueItems: opt(fc.boolean()),
      listType: opt(fc.constantFrom('atomic' as const, 'set' as const, 'map' as const)),
      listMapKeys: opt(fc.uniqueArray(propName, { minLength: 1, maxLength: 2 })),
    }),
    fc.record({
      type: fc.constant('map' as const),
      ...base(objectDefault),
      values: tie('node'),
      minProperties: opt(fc.nat(5)),
      maxProperties: opt(fc.nat(5)),
      mapType: opt(fc.constantFrom('atomic' as const, 'granular' as const)),
    }),
    tie('object'),
  ),
  object: fc.record({
    type: fc.constant('object' as const),
    ...base(objectDefault),
    properties: fc.uniqueArray(fc.record({ name: propName, required: fc.boolean(), schema: tie('node') }), {
      selector: (p) => p.name,
      maxLength: 3,
    }),
    preserveUnknownFields: fc.boolean(),
    embeddedResource: fc.boolean(),
    minProperties: opt(fc.nat(5)),
    maxProperties: opt(fc.nat(5)),
    mapType: opt(fc.constantFrom('atomic' as const, 'granular' as const)),
  }),
}));

/** Gives every object node a title unique within its kind: `<Kind>_<path>`. */
function title(n: SchemaNode, name: string): void {
  if (n.type === 'object') {
    n.title = name;
    for (const p of n.properties) title(p.schema, `${name}_${p.name}`);
  } else if (n.type === 'array') title(n.items, `${name}_item`);
  else if (n.type === 'map') title(n.values, `${name}_value`);
}

const IMPLIED = new Set(['apiVersion', 'kind', 'metadata']);

const rootSchema = (kind: string): fc.Arbitrary<SchemaNode> =>
  fc
    .record({
      description: opt(description),
      validations: opt(fc.array(rule, { minLength: 1, maxLength: 2 })),
      properties: fc.uniqueArray(fc.record({ name: propName, required: fc.boolean(), schema: node }), {
        selector: (p) => p.name,
        maxLength: 3,
      }),
      preserveUnknownFields: fc.boolean(),
    })
    .map((r) => {
      const root: SchemaNode = {
        type: 'object',
        ...r,
        properties: r.properties.filter((p) => !IMPLIED.has(p.name)),
        embeddedResource: false,
      };
      title(root, kind);
      root.title = kind;
      return root;
    });

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), { maxLength: 2 });

/** Per-kind facts shared by its versions. */
const kindNames = (kind: string) =>
  fc.record({
    plural: fc.constantFrom(`${kind.toLowerCase()}s`, `${kind.toLowerCase()}z`),
    singular: fc.constantFrom(kind.toLowerCase(), `the${kind.toLowerCase()}`),
    shortNames: names,
    categories: names,
    scope: fc.constantFrom('Namespaced' as const, 'Cluster' as const),
  });

const versionOfKind = (kind: string) =>
  fc.record({
    schema: rootSchema(kind),
    served: fc.boolean(),
    deprecated: fc.boolean(),
    warning: opt(nonEmpty),
    status: fc.boolean(),
    scale: opt(
      fc.record({ specReplicasPath: nonEmpty, statusReplicasPath: nonEmpty, labelSelectorPath: opt(nonEmpty) }),
    ),
    printerColumns: fc.array(
      fc.record(
        {
          name: nonEmpty,
          type: fc.constantFrom('string', 'integer', 'date'),
          jsonPath: nonEmpty,
          description: nonEmpty,
          format: nonEmpty,
          priority: fc.nat(3),
        },
        { requiredKeys: ['name', 'type', 'jsonPath'] },
      ),
      { maxLength: 2 },
    ),
    genclient: fc.boolean(),
    readonly: fc.boolean(),
    noStatus: fc.boolean(),
    skipVerbs: opt(fc.subarray(['create', 'watch', 'apply', 'updateStatus'] as Verb[])),
    noDeepCopy: opt(fc.constant(true as const)),
  });

/** A model of 1–2 groups, each with 1–2 versions and 1–2 kinds, that the TS format can print. */
export const modelArb: fc.Arbitrary<Model> = fc
  .uniqueArray(fc.constantFrom('example.com', 'a.b.io'), { minLength: 1, maxLength: 2 })
  .chain((groups) =>
    fc.tuple(
      ...groups.map((g) =>
        fc
          .record({
            kinds: fc.uniqueArray(fc.constantFrom('Foo', 'Bar', 'Baz'), { minLength: 1, maxLength: 2 }),
            versions: fc.uniqueArray(fc.constantFrom('v1', 'v1beta1', 'v2alpha1'), { minLength: 1, maxLength: 2 }),
          })
          .chain(({ kinds, versions }) =>
            fc
              .tuple(
                ...kinds.map((k) =>
                  fc.record({
                    kind: fc.constant(k),
                    names: kindNames(k),
                    in: fc.subarray(versions, { minLength: 1 }),
                    perVersion: fc.tuple(...versions.map(() => versionOfKind(k))),
                    storageIndex: fc.nat(),
                  }),
                ),
              )
              .map((ks) => buildGroup(g, versions, ks)),
          ),
      ),
    ),
  )
  .map((groups) => {
    const sorted = [...groups].sort((a, b) => (a.name < b.name ? -1 : 1));
    // Plain JSON: no undefined keys, no -0.
    return JSON.parse(JSON.stringify({ groups: sorted, sources: [] })) as Model;
  });

type VersionGen = ReturnType<typeof versionOfKind> extends fc.Arbitrary<infer U> ? U : never;

type KindGen = {
  kind: string;
  names: {
    plural: string;
    singular: string;
    shortNames: string[];
    categories: string[];
    scope: 'Namespaced' | 'Cluster';
  };
  in: string[];
  perVersion: VersionGen[];
  storageIndex: number;
};

function buildGroup(name: string, versions: string[], kinds: KindGen[]): Model['groups'][number] {
  const ordered = [...versions].sort(compareKubeVersions);
  return {
    name,
    versions: ordered
      .map((v) => ({
        name: v,
        kinds: kinds
          .filter((k) => k.in.includes(v))
          .map((k) => {
            const pv = k.perVersion[versions.indexOf(v)];
            const hasStatus = pv.status;
            const verbs = verbsOf({
              genclient: pv.genclient,
              noVerbs: false,
              noStatus: pv.noStatus,
              readonly: pv.readonly,
              hasStatus,
              ...(pv.skipVerbs && !pv.readonly ? { skipVerbs: pv.skipVerbs } : {}),
            });
            const kind: Kind = {
              kind: k.kind,
              listKind: `${k.kind}List`,
              ...k.names,
              served: pv.served,
              storage: k.in.length === 1 || k.in[k.storageIndex % k.in.length] === v,
              deprecated: pv.deprecated,
              subresources: { status: pv.status },
              printerColumns: pv.printerColumns,
              verbs: 'verbs' in verbs ? verbs.verbs : [],
              schema: pv.schema,
              source: { file: '', line: 0, col: 0 },
            };
            if (pv.deprecated && pv.warning !== undefined) kind.deprecationWarning = pv.warning;
            if (pv.scale) kind.subresources.scale = pv.scale;
            if (pv.noDeepCopy) kind.noDeepCopy = true;
            return kind;
          })
          .sort((a, b) => (a.kind < b.kind ? -1 : 1)),
      }))
      .filter((v) => v.kinds.length > 0),
  };
}
