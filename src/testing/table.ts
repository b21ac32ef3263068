// Table output (meta.k8s.io/v1 Table) for `kubectl get`: a Name column, the resource's
// columns (a CRD's additionalPrinterColumns, evaluated by JSONPath), rows with the
// object's metadata (PartialObjectMetadata) or the whole object.
import type { KubeObject } from '../runtime/meta/types.js';
import { age, readJsonPath } from './meta.js';
import type { ResourceInfo } from './resource.js';

/** Does the Accept header ask for a Table? */
export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept.split(',')[0] ?? '');
}

/** Table's `includeObject`: None, Metadata (default) or Object. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME_DESC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** Builds a Table of `items`. */
export function toTable(
  res: ResourceInfo,
  items: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string },
  include: IncludeObject,
): Record<string, unknown> {
  const now = Date.now();
  const columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESC, priority: 0 },
    ...res.columns.map((c) => ({ name: c.name, type: c.type === 'date' ? 'date' : c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  const rows = items.map((o) => {
    const cells: unknown[] = [o.metadata?.name ?? ''];
    for (const c of res.columns) {
      let v = c.value ? c.value(o) : c.jsonPath ? readJsonPath(o, c.jsonPath) : undefined;
      // CRD columns of type date print as an age; built-in columns compute their own cells.
      if (!c.value && c.type === 'date' && typeof v === 'string') v = age(v, now);
      else if (Array.isArray(v) || (v !== null && typeof v === 'object')) v = JSON.stringify(v);
      cells.push(v === undefined ? null : v);
    }
    const row: Record<string, unknown> = { cells };
    if (include === 'Object') row.object = o;
    else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} };
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions, rows };
}
