// Discovery documents (/version, /api, /apis, /api/v1, /apis/<g>/<v>) as plain JSON,
// and a minimal OpenAPI v2 document as gnostic protobuf for kubectl apply.
import { groupVersion } from './resource.js';
import type { Registry } from './registry.js';

/** The version the server reports. */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-crdgen',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** `/api`: core versions. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `/apis`: every non-core group with its versions, preferred first. */
export function apiGroupList(reg: Registry): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: reg
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => apiGroup(g.name, g.versions)),
  };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** `/apis/<g>`: one group, or undefined. */
export function apiGroupDoc(reg: Registry, group: string): Record<string, unknown> | undefined {
  const g = reg.groups().find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.name, g.versions) } : undefined;
}

/** `/api/v1` or `/apis/<g>/<v>`: the resources of a group/version, or undefined when none. */
export function apiResourceList(reg: Registry, group: string, version: string): Record<string, unknown> | undefined {
  const rs = reg.groupVersion(group, version);
  if (rs.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const r of rs) {
    const main: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
    };
    if (r.shortNames.length) main.shortNames = r.shortNames;
    if (r.categories.length) main.categories = r.categories;
    main.storageVersionHash = hash(`${groupVersion(r)}/${r.resource}`);
    resources.push(main);
    for (const [sub, f] of Object.entries(r.fixedSubresources ?? {})) {
      resources.push({
        name: `${r.resource}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: f.kind,
        verbs: f.verbs,
      });
    }
    if (r.statusSubresource) {
      resources.push({
        name: `${r.resource}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (r.scale) {
      resources.push({
        name: `${r.resource}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11);
}

/** The same minimal document as JSON. */
