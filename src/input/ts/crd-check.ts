// The apiserver's checks for TypeScript input: every kind is turned into the CRD the `crd`
// generator would write, and the CRD reader's apiserver-equivalent checks (names, versions,
// structural schema, defaults, list-map keys, CEL rules…) run on it. Each finding is reported
// at the TypeScript declaration it comes from, with the CRD field path the apiserver would name.
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { crdObject } from '../../model/crd-json.js';
import { isReservedWord } from '../../model/naming.js';
import type { Group, Kind, SchemaNode, SourcePos } from '../../model/types.js';
import { checkCrd } from '../crd/check.js';
import type { Path } from '../crd/field-path.js';
import { RESERVED_TYPE_NAMES } from '../../model/titles.js';

/** Checks the CRD of every kind of the model; returns diagnostics positioned in the TS sources. */
export function checkKindsAsCrds(groups: readonly Group[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const g of groups) {
    const byKind = new Map<string, { version: string; kind: Kind }[]>();
    for (const v of g.versions) {
      for (const k of v.kinds) byKind.set(k.kind, [...(byKind.get(k.kind) ?? []), { version: v.name, kind: k }]);
    }
    for (const versions of byKind.values()) {
      const first = versions[0].kind;
      if (isReservedWord(first.kind) || RESERVED_TYPE_NAMES.includes(first.kind)) {
        out.push({
          severity: 'error',
          code: 'TS010',
          message: `kind ${first.kind} is reserved in generated TypeScript (it would shadow a built-in or runtime name)`,
          ...at(first.source),
        });
        continue;
      }
      for (const f of checkCrd(crdObject(g.name, versions))) {
        out.push({ ...f.diag, ...at(locate(versions, f.path)) });
      }
    }
  }
  return out;
}

function at(pos: SourcePos): Pick<Diagnostic, 'file' | 'line' | 'col'> {
  return { file: pos.file, line: pos.line, col: pos.col };
}

/** The TS position of a CRD path: the deepest schema node on it, else the kind. */
function locate(versions: { kind: Kind }[], path: Path): SourcePos {
  const vi = path[1] === 'versions' && typeof path[2] === 'number' ? path[2] : 0;
  const kind = (versions[vi] ?? versions[0]).kind;
  if (path[3] !== 'schema' || path[4] !== 'openAPIV3Schema' || !kind.schema) return kind.source;
  let node: SchemaNode = kind.schema;
  let pos = node.source ?? kind.source;
  for (let i = 5; i < path.length; i++) {
    const seg = path[i];
    const next = path[i + 1];
    if (seg === 'properties' && node.type === 'object' && typeof next === 'object') {
      const p = node.properties.find((q) => q.name === next.key);
      if (!p) break;
      node = p.schema;
      i++;
    } else if (seg === 'items' && node.type === 'array') node = node.items;
    else if (seg === 'additionalProperties' && node.type === 'map') node = node.values;
    else break;
    if (node.source) pos = node.source;
  }
  return pos;
}
