// Table output (meta.k8s.io/v1 Table) for `kubectl get`: a CRD's additionalPrinterColumns
// evaluated by Kubernetes' JSONPath as the apiextensions table convertor does, and the built-in
// kinds' columns as kube-apiserver v1.37 defines them (schema/kubernetes/<version>/table-columns.json,
// captured from the real server by scripts/fetch-kubernetes-openapi.ts) with their cells
// computed as its printers compute them (printers.ts).
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../runtime/meta/types.js';
import { goFloat } from '../runtime/validation/go-format.js';
import { findJsonPath } from './jsonpath.js';
import { age } from './meta.js';
import { BUILTIN_CELLS, KUBERNETES_VERSION } from './printers.js';
import type { ResourceInfo } from './resource.js';

/** Does the Accept header ask for a Table? */
export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept.split(',')[0] ?? '');
}

/** Table's `includeObject`: None, Metadata (default) or Object. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

let builtinColumns: Record<string, ColumnDefinition[]> | undefined;
function columnsOf(key: string): ColumnDefinition[] | undefined {
  builtinColumns ??= (
    JSON.parse(
      readFileSync(
        new URL(`../../schema/kubernetes/${KUBERNETES_VERSION}/table-columns.json`, import.meta.url),
        'utf8',
      ),
    ) as { columns: Record<string, ColumnDefinition[]> }
  ).columns;
  return builtinColumns[key];
}

/** The key of a built-in resource in table-columns.json (`apps/v1/deployments`, `v1/configmaps`). */
export function builtinKey(res: ResourceInfo): string {
  return `${res.group ? `${res.group}/` : ''}${res.version}/${res.resource}`;
}

const NAME_COLUMN = (): ColumnDefinition => columnsOf('v1/configmaps')!.find((c) => c.name === 'Name')!;
const CREATION_TIMESTAMP_DESC = (): string => columnsOf('v1/configmaps')!.find((c) => c.name === 'Age')!.description;

/** A CRD column's cell (the table convertor's cellForJSONValue, and text for string columns). */
function customCell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) || !/^\d{4}-\d\d-\d\dT/.test(value) ? '<invalid>' : age(value, now);
    default:
      // jsonpath's PrintResults: strings as they are, maps and lists as JSON, the rest as Go's %v
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
      if (typeof value === 'boolean') return String(value);
      return JSON.stringify(value);
  }
}

/** Builds a Table of `items`. */
export function toTable(
  res: ResourceInfo,
  items: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string },
  include: IncludeObject,
): Record<string, unknown> {
  const now = Date.now();
  let columnDefinitions: ColumnDefinition[];
  let cellsOf: (o: KubeObject) => unknown[];
  if (res.custom) {
    const cols = res.columns.length
      ? res.columns
      : [
          {
            name: 'Age',
            type: 'date',
            jsonPath: '.metadata.creationTimestamp',
            description: CREATION_TIMESTAMP_DESC(),
          },
        ];
    columnDefinitions = [
      NAME_COLUMN(),
      ...cols.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath ?? ''}`,
        priority: c.priority ?? 0,
      })),
    ];
    cellsOf = (o) => [
      o.metadata?.name ?? '',
      ...cols.map((c) => customCell(c.type, c.jsonPath ? findJsonPath(o, c.jsonPath)[0] : undefined, now)),
    ];
  } else {
    const key = builtinKey(res);
    const defs = columnsOf(key);
    const cells = BUILTIN_CELLS[key];
    if (!defs || !cells) throw new Error(`no Table columns for ${key}`);
    columnDefinitions = defs;
    cellsOf = (o) => cells(o, now);
  }
  const rows = items.map((o) => {
    const row: Record<string, unknown> = { cells: cellsOf(o) };
    if (include === 'Object') row.object = o;
    else if (include === 'Metadata')
      row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} };
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions, rows };
}
