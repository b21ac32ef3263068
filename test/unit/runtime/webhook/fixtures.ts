// A two-version kind for the webhook tests, shaped as the DatabaseManager example's: v1alpha1
// has `dbtype`, v1 (the hub) renames it `engine` and adds `version`; v1alpha1 also keeps an
// `legacyPort` that v1 dropped. The functions copy what maps and drop the rest (as a hand-written
// conversion would): the framework must keep what they drop.
import type { HubAndSpoke, KubeObject } from '../../../../src/runtime/index.js';

type Rec = Record<string, unknown>;

export const databaseConversion: HubAndSpoke = {
  group: 'coolops.cn',
  kind: 'DatabaseManager',
  hub: 'v1',
  spokes: {
    v1alpha1: {
      toHub(spoke: KubeObject): KubeObject {
        const s = ((spoke as Rec).spec ?? {}) as Rec;
        const spec: Rec = {};
        if (s.deploymentName !== undefined) spec.deploymentName = s.deploymentName;
        if (s.replicas !== undefined) spec.replicas = s.replicas;
        if (s.dbtype !== undefined) spec.engine = s.dbtype;
        const out: Rec = { ...spoke, spec };
        if ((spoke as Rec).spec === undefined) delete out.spec;
        return out;
      },
      fromHub(hub: KubeObject): KubeObject {
        const h = ((hub as Rec).spec ?? {}) as Rec;
        const spec: Rec = {};
        if (h.deploymentName !== undefined) spec.deploymentName = h.deploymentName;
        if (h.replicas !== undefined) spec.replicas = h.replicas;
        if (h.engine !== undefined) spec.dbtype = h.engine;
        const out: Rec = { ...hub, spec };
        if ((hub as Rec).spec === undefined) delete out.spec;
        return out;
      },
    },
  },
};

export function v1alpha1(spec: Rec, meta: Rec = {}): KubeObject {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'db', namespace: 'default', ...meta },
    spec,
  } as KubeObject;
}

export function v1(spec: Rec, meta: Rec = {}): KubeObject {
  return {
    apiVersion: 'coolops.cn/v1',
    kind: 'DatabaseManager',
    metadata: { name: 'db', namespace: 'default', ...meta },
    spec,
  } as KubeObject;
}
