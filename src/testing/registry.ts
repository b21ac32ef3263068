// The set of resources being served: built-ins plus each established CRD's served
// versions. Discovery documents and request routing read it.
import { builtinResources } from './builtins.js';
import type { ResourceInfo } from './resource.js';

/** All served resources, by group/version/plural. */
export class Registry {
  private readonly byGvr = new Map<string, ResourceInfo>();
  /** CRD name → the resources it serves. */
  private readonly byCrd = new Map<string, ResourceInfo[]>();

  constructor() {
    for (const r of builtinResources()) this.byGvr.set(key(r.group, r.version, r.resource), r);
  }

  /** The resource served at group/version/plural, if any. */
  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byGvr.get(key(group, version, resource));
  }

  /** Every served resource, sorted by group, version, plural. */
  all(): ResourceInfo[] {
    return [...this.byGvr.values()].sort((a, b) =>
      a.group === b.group
        ? a.version === b.version
          ? cmp(a.resource, b.resource)
          : cmp(a.version, b.version)
        : cmp(a.group, b.group),
    );
  }

  /** Served group names (core as ''), each with its versions, preferred first. */
  groups(): { name: string; versions: string[] }[] {
    const m = new Map<string, Set<string>>();
    for (const r of this.byGvr.values()) {
      if (!m.has(r.group)) m.set(r.group, new Set());
      m.get(r.group)!.add(r.version);
    }
    const builtinOrder = [
      '',
      'apiextensions.k8s.io',
      'apps',
      'events.k8s.io',
      'coordination.k8s.io',
      'admissionregistration.k8s.io',
    ];
    return [...m.entries()]
      .sort(([a], [b]) => {
        const ia = builtinOrder.indexOf(a);
        const ib = builtinOrder.indexOf(b);
        if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
        return cmp(a, b);
      })
      .map(([name, vs]) => ({ name, versions: [...vs].sort(compareKubeVersions) }));
  }

  /** Resources of one group/version. */
  groupVersion(group: string, version: string): ResourceInfo[] {
    return this.all().filter((r) => r.group === group && r.version === version);
  }

  /** Starts serving a CRD's versions (replacing what it served before). */
  setCrd(crdName: string, resources: ResourceInfo[]): void {
    this.removeCrd(crdName);
    for (const r of resources) this.byGvr.set(key(r.group, r.version, r.resource), r);
    this.byCrd.set(crdName, resources);
  }

  /** Stops serving a CRD's versions. */
  removeCrd(crdName: string): void {
    for (const r of this.byCrd.get(crdName) ?? []) this.byGvr.delete(key(r.group, r.version, r.resource));
    this.byCrd.delete(crdName);
  }

  /** The resources a CRD serves. */
  crdResources(crdName: string): ResourceInfo[] {
    return this.byCrd.get(crdName) ?? [];
  }

  /** Every served resource stored under one storage prefix (all versions of a resource). */
  byStoragePrefix(prefix: string): ResourceInfo | undefined {
    let found: ResourceInfo | undefined;
    for (const r of this.byGvr.values()) {
      if (r.storagePrefix !== prefix) continue;
      // a custom resource's storage version first: stored objects are in its form
      if (r.conversion && r.conversion.storageVersion === r.version) return r;
      found ??= r;
    }
    return found;
  }
}

function key(g: string, v: string, r: string): string {
  return `${g}/${v}/${r}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, others last by name. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa[0] !== pb[0]) return pb[0] - pa[0];
    if (pa[1] !== pb[1]) return pb[1] - pa[1];
    return pb[2] - pa[2];
  }
  if (pa) return -1;
  if (pb) return 1;
  return cmp(a, b);
}
