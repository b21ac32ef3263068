// Request bodies in Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), which
// kubectl ≥ 1.30 sends for typed writes (`kubectl create namespace|configmap|secret|
// deployment`). Decodes the `k8s\0` envelope (runtime.Unknown) and the messages of those
// kinds into the JSON the apiserver would see; other kinds get a clear 415.
import { ApiError, failure } from './status.js';

type Json = Record<string, unknown>;

/** How one field decodes. `ptr` keeps zero values (Go pointer fields); others drop them as JSON omitempty does. */
type FieldType =
  | 'string'
  | 'int'
  | 'bool'
  | 'bytes'
  | 'time'
  | 'microtime'
  | 'quantity'
  | 'intorstring'
  | { map: 'string' | 'bytes' | 'quantity' }
  | { msg: string }
  | { repeated: 'string' | { msg: string } };

interface FieldSpec {
  name: string;
  type: FieldType;
  ptr?: boolean;
}

/** Field numbers of the messages we decode (k8s.io/api generated.proto), confirmed on kubectl's own bodies. */
const MESSAGES: Record<string, Record<number, FieldSpec>> = {
  ObjectMeta: {
    1: { name: 'name', type: 'string' },
    2: { name: 'generateName', type: 'string' },
    3: { name: 'namespace', type: 'string' },
    5: { name: 'uid', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'generation', type: 'int' },
    11: { name: 'labels', type: { map: 'string' } },
    12: { name: 'annotations', type: { map: 'string' } },
    13: { name: 'ownerReferences', type: { repeated: { msg: 'OwnerReference' } } },
    14: { name: 'finalizers', type: { repeated: 'string' } },
  },
  OwnerReference: {
    1: { name: 'kind', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
    5: { name: 'apiVersion', type: 'string' },
    6: { name: 'controller', type: 'bool', ptr: true },
    7: { name: 'blockOwnerDeletion', type: 'bool', ptr: true },
  },
  Namespace: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } }, 2: { name: 'spec', type: { msg: 'NamespaceSpec' } } },
  NamespaceSpec: { 1: { name: 'finalizers', type: { repeated: 'string' } } },
  ConfigMap: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'data', type: { map: 'string' } },
    3: { name: 'binaryData', type: { map: 'bytes' } },
    4: { name: 'immutable', type: 'bool', ptr: true },
  },
  Secret: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'data', type: { map: 'bytes' } },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: { map: 'string' } },
    5: { name: 'immutable', type: 'bool', ptr: true },
  },
  Lease: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } }, 2: { name: 'spec', type: { msg: 'LeaseSpec' } } },
  LeaseSpec: {
    1: { name: 'holderIdentity', type: 'string', ptr: true },
    2: { name: 'leaseDurationSeconds', type: 'int', ptr: true },
    3: { name: 'acquireTime', type: 'microtime' },
    4: { name: 'renewTime', type: 'microtime' },
    5: { name: 'leaseTransitions', type: 'int', ptr: true },
  },
  Deployment: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } }, 2: { name: 'spec', type: { msg: 'DeploymentSpec' } } },
  DeploymentSpec: {
    1: { name: 'replicas', type: 'int', ptr: true },
    2: { name: 'selector', type: { msg: 'LabelSelector' } },
    3: { name: 'template', type: { msg: 'PodTemplateSpec' } },
    4: { name: 'strategy', type: { msg: 'DeploymentStrategy' } },
    5: { name: 'minReadySeconds', type: 'int' },
    6: { name: 'revisionHistoryLimit', type: 'int', ptr: true },
    7: { name: 'paused', type: 'bool' },
    9: { name: 'progressDeadlineSeconds', type: 'int', ptr: true },
  },
  DeploymentStrategy: { 1: { name: 'type', type: 'string' }, 2: { name: 'rollingUpdate', type: { msg: 'RollingUpdateDeployment' } } },
  RollingUpdateDeployment: { 1: { name: 'maxUnavailable', type: 'intorstring' }, 2: { name: 'maxSurge', type: 'intorstring' } },
  LabelSelector: {
    1: { name: 'matchLabels', type: { map: 'string' } },
    2: { name: 'matchExpressions', type: { repeated: { msg: 'LabelSelectorRequirement' } } },
  },
  LabelSelectorRequirement: {
    1: { name: 'key', type: 'string' },
    2: { name: 'operator', type: 'string' },
    3: { name: 'values', type: { repeated: 'string' } },
  },
  PodTemplateSpec: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } }, 2: { name: 'spec', type: { msg: 'PodSpec' } } },
  PodSpec: {
    2: { name: 'containers', type: { repeated: { msg: 'Container' } } },
    3: { name: 'restartPolicy', type: 'string' },
    4: { name: 'terminationGracePeriodSeconds', type: 'int', ptr: true },
    6: { name: 'dnsPolicy', type: 'string' },
    7: { name: 'nodeSelector', type: { map: 'string' } },
    8: { name: 'serviceAccountName', type: 'string' },
    20: { name: 'initContainers', type: { repeated: { msg: 'Container' } } },
  },
  Container: {
    1: { name: 'name', type: 'string' },
    2: { name: 'image', type: 'string' },
    3: { name: 'command', type: { repeated: 'string' } },
    4: { name: 'args', type: { repeated: 'string' } },
    5: { name: 'workingDir', type: 'string' },
    6: { name: 'ports', type: { repeated: { msg: 'ContainerPort' } } },
    7: { name: 'env', type: { repeated: { msg: 'EnvVar' } } },
    8: { name: 'resources', type: { msg: 'ResourceRequirements' } },
    13: { name: 'terminationMessagePath', type: 'string' },
    14: { name: 'imagePullPolicy', type: 'string' },
    16: { name: 'stdin', type: 'bool' },
    17: { name: 'stdinOnce', type: 'bool' },
    18: { name: 'tty', type: 'bool' },
    20: { name: 'terminationMessagePolicy', type: 'string' },
  },
  ContainerPort: {
    1: { name: 'name', type: 'string' },
    2: { name: 'hostPort', type: 'int' },
    3: { name: 'containerPort', type: 'int' },
    4: { name: 'protocol', type: 'string' },
    5: { name: 'hostIP', type: 'string' },
  },
  EnvVar: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } },
  ResourceRequirements: { 1: { name: 'limits', type: { map: 'quantity' } }, 2: { name: 'requests', type: { map: 'quantity' } } },
};

/** Kinds whose protobuf bodies are decoded, by `apiVersion/kind`. */
const TOP_LEVEL: Record<string, string> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'apps/v1/Deployment': 'Deployment',
  'coordination.k8s.io/v1/Lease': 'Lease',
};

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }
  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 2) this.bytes();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

/** Raw fields of a message: field number → list of [wire type, value]. */
function fields(buf: Uint8Array): Map<number, (bigint | Uint8Array)[]> {
  const r = new Reader(buf);
  const out = new Map<number, (bigint | Uint8Array)[]>();
  while (!r.done()) {
    const key = Number(r.varint());
    const no = key >>> 3;
    const wt = key & 7;
    let v: bigint | Uint8Array;
    if (wt === 0) v = r.varint();
    else if (wt === 2) v = r.bytes();
    else {
      r.skip(wt);
      continue;
    }
    if (!out.has(no)) out.set(no, []);
    out.get(no)!.push(v);
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
const str = (v: bigint | Uint8Array | undefined): string => (v instanceof Uint8Array ? utf8.decode(v) : '');
const num = (v: bigint | Uint8Array | undefined): number => (typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : 0);

function timeOf(v: Uint8Array, micro: boolean): string | undefined {
  const f = fields(v);
  const seconds = num(f.get(1)?.[0]);
  const nanos = num(f.get(2)?.[0]);
  if (seconds === 0 && nanos === 0) return undefined;
  const iso = new Date(seconds * 1000).toISOString();
  return micro ? iso.replace(/\.\d{3}Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`) : iso.replace(/\.\d{3}Z$/, 'Z');
}

function decodeValue(type: FieldType, values: (bigint | Uint8Array)[], ptr: boolean): unknown {
  const last = values[values.length - 1];
  if (type === 'string') {
    const s = str(last);
    return s === '' && !ptr ? undefined : s;
  }
  if (type === 'int') {
    const n = num(last);
    return n === 0 && !ptr ? undefined : n;
  }
  if (type === 'bool') {
    const b = num(last) !== 0;
    return !b && !ptr ? undefined : b;
  }
  if (type === 'bytes') return last instanceof Uint8Array ? Buffer.from(last).toString('base64') : undefined;
  if (type === 'time' || type === 'microtime') return last instanceof Uint8Array ? timeOf(last, type === 'microtime') : undefined;
  if (type === 'quantity') return last instanceof Uint8Array ? str(fields(last).get(1)?.[0]) : undefined;
  if (type === 'intorstring') {
    if (!(last instanceof Uint8Array)) return undefined;
    const f = fields(last);
    return num(f.get(1)?.[0]) === 1 ? str(f.get(3)?.[0]) : num(f.get(2)?.[0]);
  }
  if ('map' in type) {
    const out: Json = {};
    for (const e of values) {
      if (!(e instanceof Uint8Array)) continue;
      const f = fields(e);
      const k = str(f.get(1)?.[0]);
      const raw = f.get(2)?.[0];
      out[k] = type.map === 'string' ? str(raw) : type.map === 'bytes' ? Buffer.from(raw instanceof Uint8Array ? raw : new Uint8Array()).toString('base64') : raw instanceof Uint8Array ? str(fields(raw).get(1)?.[0]) : '';
    }
    return Object.keys(out).length ? out : undefined;
  }
  if ('msg' in type) return last instanceof Uint8Array ? decodeMessage(type.msg, last) : undefined;
  const items = values.map((v) => (type.repeated === 'string' ? str(v) : v instanceof Uint8Array ? decodeMessage(type.repeated.msg, v) : undefined));
  return items.length ? items : undefined;
}

function decodeMessage(name: string, buf: Uint8Array): Json {
  const spec = MESSAGES[name]!;
  const out: Json = {};
  for (const [no, values] of fields(buf)) {
    const f = spec[no];
    if (!f) continue; // fields we do not model (e.g. status) are dropped, as unknown fields are
    const v = decodeValue(f.type, values, f.ptr === true);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

function unsupported(what: string): ApiError {
  return new ApiError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - ${what}; this test server decodes protobuf only for v1 Namespace, ConfigMap, Secret, apps/v1 Deployment and coordination.k8s.io/v1 Lease - send application/json`,
    ),
  );
}

/** Decodes a `application/vnd.kubernetes.protobuf` body into the object's JSON form. */
export function decodeKubeProtobuf(buf: Uint8Array): Json {
  if (buf.length < 4 || buf[0] !== 0x6b || buf[1] !== 0x38 || buf[2] !== 0x73 || buf[3] !== 0x00) {
    throw unsupported('the protobuf body lacks the k8s envelope');
  }
  try {
    const unknown = fields(buf.subarray(4));
    const typeMeta = unknown.get(1)?.[0];
    const raw = unknown.get(2)?.[0];
    const tm = typeMeta instanceof Uint8Array ? fields(typeMeta) : new Map();
    const apiVersion = str(tm.get(1)?.[0]);
    const kind = str(tm.get(2)?.[0]);
    const msg = TOP_LEVEL[`${apiVersion}/${kind}`];
    if (!msg) throw unsupported(`protobuf ${apiVersion} ${kind}`);
    return { apiVersion, kind, ...decodeMessage(msg, raw instanceof Uint8Array ? raw : new Uint8Array()) };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(failure(400, 'BadRequest', `cannot decode the protobuf body: ${(e as Error).message}`));
  }
}
