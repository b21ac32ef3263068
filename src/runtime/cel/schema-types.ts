// A structural schema as CEL types, as k8s.io/apiserver's SchemaDeclType builds them: objects with
// their (escaped) properties, maps for additionalProperties, lists for items, int-or-string as dyn,
// strings of format byte/duration/date/date-time as bytes/duration/timestamp, and nothing (no
// type) for untyped nodes. A resource root (or embedded resource) also has apiVersion, kind and
// metadata.name/generateName. Each type carries the size bounds the cost model uses (maxLength ×4
// for strings, maxItems, maxProperties, else what fits in a 3 MiB request).
import type { Node } from '../validation/node.js';
import type { SchemaNode } from '../validation/schema.js';
import { escapePropertyName } from './typecheck.js';
import { BOOL, DOUBLE, DYN, INT, type CelType } from './types.js';

/** The largest request the apiserver accepts (3 MiB): the bound of unbounded sizes. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** Size facts of a declared type (cel-go DeclType.MaxElements / MinSerializedSize). */
export interface SizeInfo {
  maxElements: number;
  minSerializedSize: number;
}

const sizes = new WeakMap<CelType, SizeInfo>();

/** The size bounds of a schema type (undefined for literals' types). */
export function sizeOf(t: CelType): SizeInfo | undefined {
  return sizes.get(t);
}

function sized<T extends CelType>(t: T, maxElements: number, minSerializedSize: number): T {
  sizes.set(t, { maxElements, minSerializedSize });
  return t;
}

const META_KEYS = ['name', 'generateName'];

function stringMax(s: SchemaNode): number {
  if (s.maxLength !== undefined) return Math.max(0, s.maxLength) * 4;
  switch (s.format) {
    case 'duration':
      return 32;
    case 'date':
      return 12;
    case 'date-time':
      return 32;
  }
  if (s.enum && s.enum.length) return Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? v.length : 0)));
  return MAX_REQUEST_SIZE_BYTES - 2;
}

/** The CEL type of a schema node (undefined: no CEL type, the apiserver leaves such fields out). */
export function schemaType(n: Node, isResourceRoot: boolean, name = 'selfType'): CelType | undefined {
  const s = n.s;
  if (s['x-kubernetes-int-or-string'])
    return sized(
      { k: 'dyn' },
      s.maxLength !== undefined ? Math.max(0, s.maxLength) * 4 : MAX_REQUEST_SIZE_BYTES - 2,
      1,
    );
  switch (s.type) {
    case 'array': {
      if (!n.items) return undefined;
      const it = schemaType(n.items, n.items.s['x-kubernetes-embedded-resource'] === true, `${name}.@idx`);
      if (!it) return undefined;
      const min = sizeOf(it)?.minSerializedSize ?? 1;
      const max =
        s.maxItems !== undefined ? Math.max(0, s.maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (min + 1));
      return sized({ k: 'list', elem: it }, max, 2);
    }
    case 'object': {
      if (n.addl) {
        const vt = schemaType(n.addl, n.addl.s['x-kubernetes-embedded-resource'] === true, `${name}.@elem`);
        if (!vt) return undefined;
        const min = sizeOf(vt)?.minSerializedSize ?? 1;
        const max =
          s.maxProperties !== undefined
            ? Math.max(0, s.maxProperties)
            : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (min + 6));
        // the key type is Kubernetes' shared StringType, whose MaxElements is 0
        return sized({ k: 'map', key: sized({ k: 'string' }, 0, 2), value: vt }, max, 2);
      }
      let fields: Map<string, CelType> | undefined;
      const required = new Set(s.required ?? []);
      let minSize = 2;
      const build = () => {
        if (fields) return fields;
        fields = new Map();
        for (const [k, child] of n.props ?? []) {
          const ft = schemaType(child, child.s['x-kubernetes-embedded-resource'] === true, `${name}.${k}`);
          if (!ft) continue;
          const esc = escapePropertyName(k);
          if (esc !== undefined) fields.set(esc, ft);
        }
        if (isResourceRoot) {
          const meta = n.props?.get('metadata');
          const complete =
            n.props?.get('kind')?.s.type === 'string' &&
            n.props.get('apiVersion')?.s.type === 'string' &&
            meta?.s.type === 'object' &&
            META_KEYS.every((m) => meta.props?.get(m)?.s.type === 'string');
          if (!complete) {
            const str = () => sized({ k: 'string' }, MAX_REQUEST_SIZE_BYTES - 2, 2);
            fields.set('kind', str());
            fields.set('apiVersion', str());
            const mf = new Map<string, CelType>(META_KEYS.map((m) => [m, str()]));
            fields.set('metadata', sized({ k: 'object', name: `${name}.metadata`, fields: () => mf }, 0, 2));
          }
        }
        return fields;
      };
      for (const [k, child] of n.props ?? []) {
        if (required.has(k) && child.s.default === undefined) minSize += k.length + 4 + minSerialized(child);
      }
      return sized({ k: 'object', name, fields: build }, 0, minSize);
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return sized({ k: 'bytes' }, stringMax(s), 2);
        case 'duration':
          return sized({ k: 'duration' }, stringMax(s), 3);
        case 'date':
          return sized({ k: 'timestamp' }, stringMax(s), 12);
        case 'date-time':
          return sized({ k: 'timestamp' }, stringMax(s), 21);
      }
      return sized({ k: 'string' }, stringMax(s), 2);
    case 'boolean':
      return sized({ ...BOOL }, 0, 4);
    case 'number':
      return sized({ ...DOUBLE }, 0, 1);
    case 'integer':
      return sized({ ...INT }, 0, 1);
  }
  void DYN;
  return undefined;
}

function minSerialized(n: Node): number {
  const s = n.s;
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string':
      return s.format === 'date' ? 12 : s.format === 'date-time' ? 21 : s.format === 'duration' ? 3 : 2;
    case 'boolean':
      return 4;
    case 'number':
    case 'integer':
      return 1;
  }
  return 2;
}
