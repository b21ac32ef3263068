// FakeClientBackend: a ClientBackend over an ObjectTracker. Generated fake clientsets
// are the generated Clientset on this backend, so real and fake share the typed code.
import type { KubeList, KubeObject, Status } from '../meta/types.js';
import type { ListOptions, Watch } from '../client/types.js';
import {
  PatchType,
  type ApplyConfiguration,
  type ApplyOptions,
  type CreateOptions,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type GetOptions,
  type PatchOptions,
  type ResourceClient,
  type ResourceDescriptor,
  type UpdateOptions,
} from '../client/resource.js';
import type { ClientBackend } from '../typed/backend.js';
import type { Scale, ScaleClient } from '../typed/scale.js';
import { Fake, type Action, type ActionVerb } from './actions.js';
import { ObjectTracker, type TrackedResource } from './tracker.js';
import { jsonPatch, mergePatch } from './patch.js';
import { invalid, notFound, statusError } from './errors.js';

function listOpts(o: ListOptions | undefined): Omit<ListOptions, 'signal'> | undefined {
  if (!o) return undefined;
  const { signal: _s, ...rest } = o;
  return rest;
}

function checkName(verb: string, d: ResourceDescriptor, name: unknown): string {
  if (typeof name !== 'string' || name === '') throw new Error(`${verb} ${d.resource}: a non-empty name is required`);
  return name;
}

/** One resource client of the fake: records, reacts, then asks the tracker. */
class FakeResourceClient<T extends KubeObject, TList extends KubeList<T>> implements ResourceClient<T, TList> {
  constructor(
    private readonly fake: Fake,
    private readonly tracker: ObjectTracker,
    readonly descriptor: ResourceDescriptor,
    readonly namespaceName: string | undefined,
  ) {}

  namespace(ns: string): ResourceClient<T, TList> {
    return new FakeResourceClient<T, TList>(
      this.fake,
      this.tracker,
      this.descriptor,
      this.descriptor.namespaced ? ns || undefined : undefined,
    );
  }

  private action(verb: ActionVerb, extra: Partial<Action> = {}, subresource = ''): Action {
    const d = this.descriptor;
    return {
      verb,
      resource: { group: d.group, version: d.version, resource: d.resource },
      subresource,
      namespace: this.namespaceName ?? '',
      ...extra,
    };
  }

  /** Records `action`, runs the reactors, else `fallback` (the tracker). Results are copies. */
  private async invoke<R>(action: Action, fallback: () => R): Promise<R> {
    this.fake.record(action);
    const reaction = await this.fake.react(action);
    if (reaction) {
      if ('error' in reaction) throw reaction.error;
      return structuredClone(reaction.object) as R;
    }
    return fallback();
  }

  private ns(obj?: KubeObject): string | undefined {
    return this.descriptor.namespaced ? (this.namespaceName ?? obj?.metadata?.namespace) : undefined;
  }

  private requireNs(verb: string, name: string): string | undefined {
    if (this.descriptor.namespaced && !this.namespaceName) {
      throw new Error(
        `${verb} ${this.descriptor.resource} ${JSON.stringify(name)}: ${this.descriptor.resource} are namespaced; bind the client with namespace(ns)`,
      );
    }
    return this.namespaceName;
  }

  get(name: string, _options?: GetOptions): Promise<T> {
    checkName('get', this.descriptor, name);
    const ns = this.requireNs('get', name);
    return this.invoke(this.action('get', { name }), () => this.tracker.get(this.descriptor, ns, name) as T);
  }

  list(options?: ListOptions): Promise<TList> {
    const lo = listOpts(options);
    return this.invoke(
      this.action('list', lo ? { listOptions: lo } : {}),
      () => this.tracker.list(this.descriptor, this.namespaceName, options) as unknown as TList,
    );
  }

  async listAll(options?: ListOptions): Promise<TList> {
    return this.list({ ...options, limit: undefined, continue: undefined });
  }

  create(obj: T, options?: CreateOptions): Promise<T> {
    const ns = this.ns(obj);
    return this.invoke(
      this.action('create', {
        object: obj,
        ...(obj?.metadata?.name ? { name: obj.metadata.name } : {}),
        namespace: ns ?? '',
      }),
      () => this.tracker.create(this.descriptor, obj, ns, options?.dryRun ? { dryRun: true } : {}) as T,
    );
  }

  update(obj: T, options?: UpdateOptions): Promise<T> {
    const ns = this.ns(obj);
    return this.invoke(
      this.action('update', { object: obj, name: obj?.metadata?.name ?? '', namespace: ns ?? '' }),
      () => this.tracker.update(this.descriptor, obj, ns, options?.dryRun ? { dryRun: true } : {}) as T,
    );
  }

  updateStatus(obj: T, options?: UpdateOptions): Promise<T> {
    const ns = this.ns(obj);
    return this.invoke(
      this.action('update', { object: obj, name: obj?.metadata?.name ?? '', namespace: ns ?? '' }, 'status'),
      () =>
        this.tracker.update(this.descriptor, obj, ns, {
          subresource: 'status',
          ...(options?.dryRun ? { dryRun: true } : {}),
        }) as T,
    );
  }

  patch(name: string, patchType: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    return this.doPatch(name, patchType, patch, options, '');
  }

  patchStatus(name: string, patchType: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    return this.doPatch(name, patchType, patch, options, 'status');
  }

  apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    if (!options?.fieldManager) throw new Error(`apply ${this.descriptor.resource}: options.fieldManager is required`);
    return this.doPatch(
      checkName('apply', this.descriptor, obj?.metadata?.name),
      PatchType.Apply,
      obj,
      options,
      '',
      obj?.metadata?.namespace,
    );
  }

  applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    if (!options?.fieldManager)
      throw new Error(`applyStatus ${this.descriptor.resource}: options.fieldManager is required`);
    return this.doPatch(
      checkName('applyStatus', this.descriptor, obj?.metadata?.name),
      PatchType.Apply,
      obj,
      options,
      'status',
      obj?.metadata?.namespace,
    );
  }

  private doPatch(
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: PatchOptions | ApplyOptions | undefined,
    sub: '' | 'status',
    objNs?: string,
  ): Promise<T> {
    checkName('patch', this.descriptor, name);
    const d = this.descriptor;
    const ns = d.namespaced ? (this.namespaceName ?? objNs) : undefined;
    if (d.namespaced && !ns) this.requireNs('patch', name);
    return this.invoke(this.action('patch', { name, patchType, patch, namespace: ns ?? '' }, sub), () => {
      if (patchType === PatchType.StrategicMerge) {
        throw statusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        );
      }
      let current: KubeObject | undefined;
      try {
        current = this.tracker.get(d, ns, name);
      } catch (e) {
        if (patchType !== PatchType.Apply || sub !== '') throw e;
      }
      if (current === undefined) {
        // server-side apply creates what does not exist
        return this.tracker.create(d, patch as KubeObject, ns, options?.dryRun ? { dryRun: true } : {}) as T;
      }
      let next: unknown;
      if (patchType === PatchType.JSON) next = jsonPatch(current, patch);
      else if (patchType === PatchType.Merge || patchType === PatchType.Apply) next = mergePatch(current, patch);
      else throw statusError(415, 'UnsupportedMediaType', `unsupported patch type ${JSON.stringify(patchType)}`);
      const obj = next as KubeObject;
      if (!obj || typeof obj !== 'object') throw invalid(d, name, '<root>', 'the patch did not produce an object');
      if (obj.metadata?.name !== name)
        throw invalid(d, name, 'metadata.name', 'the name of the object may not be changed by a patch');
      // A patch applies to the version it read unless it carries its own resourceVersion.
      const carried = (patch as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
      obj.metadata = { ...obj.metadata, resourceVersion: carried ?? current.metadata!.resourceVersion! };
      return this.tracker.update(d, obj, ns, {
        ...(sub === 'status' ? { subresource: 'status' as const } : {}),
        ...(options?.dryRun ? { dryRun: true } : {}),
      }) as T;
    });
  }

  delete(name: string, options?: DeleteOptions): Promise<T | Status> {
    checkName('delete', this.descriptor, name);
    const ns = this.requireNs('delete', name);
    return this.invoke(
      this.action('delete', { name }),
      () =>
        this.tracker.delete(this.descriptor, ns, name, {
          ...(options?.preconditions ? { preconditions: options.preconditions } : {}),
          ...(options?.dryRun ? { dryRun: true } : {}),
        }) as T | Status,
    );
  }

  deleteCollection(options?: DeleteCollectionOptions): Promise<TList | Status> {
    const lo: ListOptions = {
      ...(options?.labelSelector ? { labelSelector: options.labelSelector } : {}),
      ...(options?.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
    };
    return this.invoke(this.action('delete-collection', { listOptions: lo }), () => {
      const list = this.tracker.list(this.descriptor, this.namespaceName, lo);
      for (const o of list.items) {
        if (!options?.dryRun) this.tracker.delete(this.descriptor, o.metadata?.namespace, o.metadata!.name!, {});
      }
      return list as unknown as TList;
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the tracker watches synchronously; `async` makes its refusals rejections, as the real client's are
  async watch(options?: ListOptions): Promise<Watch<T>> {
    const lo = listOpts(options);
    const action = this.action('watch', lo ? { listOptions: lo } : {});
    this.fake.record(action);
    const w = this.fake.reactWatch(action);
    if (w) return w as Watch<T>;
    return this.tracker.watch(this.descriptor, this.namespaceName, options) as unknown as Watch<T>;
  }
}

/** The scale subresource over the tracker: `spec.replicas` / `status.replicas`. */
class FakeScaleClient implements ScaleClient {
  constructor(
    private readonly fake: Fake,
    private readonly tracker: ObjectTracker,
    private readonly d: ResourceDescriptor,
    private readonly ns: string | undefined,
  ) {}

  private action(verb: ActionVerb, name: string, object?: Scale): Action {
    return {
      verb,
      resource: { group: this.d.group, version: this.d.version, resource: this.d.resource },
      subresource: 'scale',
      namespace: this.ns ?? '',
      name,
      ...(object ? { object: object } : {}),
    };
  }

  private toScale(o: KubeObject): Scale {
    const x = o as KubeObject & { spec?: { replicas?: number }; status?: { replicas?: number } };
    return {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: o.metadata!.name!,
        ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
        uid: o.metadata!.uid!,
        resourceVersion: o.metadata!.resourceVersion!,
        creationTimestamp: o.metadata!.creationTimestamp!,
      },
      spec: { replicas: x.spec?.replicas ?? 0 },
      status: { replicas: x.status?.replicas ?? 0 },
    };
  }

  private check(): void {
    const r = this.tracker.resource(this.d);
    if (!r.subresources?.scale) throw notFound(this.d, 'scale');
  }

  async getScale(name: string): Promise<Scale> {
    const a = this.action('get', name);
    this.fake.record(a);
    const reaction = await this.fake.react(a);
    if (reaction) {
      if ('error' in reaction) throw reaction.error;
      return structuredClone(reaction.object) as Scale;
    }
    this.check();
    return this.toScale(this.tracker.get(this.d, this.ns, name));
  }

  async updateScale(name: string, scale: Scale, options?: UpdateOptions): Promise<Scale> {
    const a = this.action('update', name, scale);
    this.fake.record(a);
    const reaction = await this.fake.react(a);
    if (reaction) {
      if ('error' in reaction) throw reaction.error;
      return structuredClone(reaction.object) as Scale;
    }
    this.check();
    const cur = this.tracker.get(this.d, this.ns, name) as KubeObject & { spec?: Record<string, unknown> };
    const next = { ...cur, spec: { ...(cur.spec ?? {}), replicas: scale.spec?.replicas ?? 0 } };
    if (scale.metadata?.resourceVersion)
      next.metadata = { ...next.metadata, resourceVersion: scale.metadata.resourceVersion };
    return this.toScale(this.tracker.update(this.d, next, this.ns, options?.dryRun ? { dryRun: true } : {}));
  }
}

/**
 * A ClientBackend answering from an in-memory {@link ObjectTracker}, recording every call
 * and running reactors first (see {@link Fake}).
 */
export class FakeClientBackend extends Fake implements ClientBackend {
  /** The object store; seed or inspect it directly in tests. */
  readonly tracker: ObjectTracker;

  /** A backend serving `resources`, seeded with `objects` (each needs apiVersion and kind). */
  constructor(resources: readonly TrackedResource[], objects: readonly KubeObject[] = []) {
    super();
    this.tracker = new ObjectTracker(resources);
    for (const o of objects) this.tracker.add(o);
  }

  /** A recording, reacting client of `descriptor` over the tracker. */
  resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
    descriptor: ResourceDescriptor,
    namespace?: string,
  ): ResourceClient<T, TList> {
    return new FakeResourceClient<T, TList>(
      this,
      this.tracker,
      descriptor,
      descriptor.namespaced && namespace ? namespace : undefined,
    );
  }

  /** The scale subresource of `descriptor` over the tracker (`spec.replicas` / `status.replicas`). */
  scale(descriptor: ResourceDescriptor, namespace?: string): ScaleClient {
    return new FakeScaleClient(
      this,
      this.tracker,
      descriptor,
      descriptor.namespaced && namespace ? namespace : undefined,
    );
  }
}
