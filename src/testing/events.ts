// Events as kube-apiserver v1.37.1 serves them: core/v1 events and events.k8s.io/v1 events are
// one resource (one storage, the internal core.Event), each version converted to and from it
// (pkg/apis/events/v1/conversion.go): regarding ↔ involvedObject, note ↔ message,
// reportingController ↔ reportingComponent, deprecatedSource/FirstTimestamp/LastTimestamp/Count
// ↔ source/firstTimestamp/lastTimestamp/count; eventTime, series, action, related, reason, type
// and reportingInstance as they are. testenv stores the core/v1 form. Nothing is invented
// (no count, timestamps or type), and each version is validated as the apiserver validates it
// for that version (pkg/apis/core/validation/events.go: the legacy rules for core/v1, the
// stricter ones for events.k8s.io/v1).
import type { KubeObject } from '../runtime/meta/types.js';
import { invalid, required } from '../runtime/validation/field-error.js';
import { isObject, jsonEqual } from './meta.js';
import { qualifiedNameErrors } from './services.js';
import type { FieldCause } from './status.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Members of each version's JSON that Go leaves out when empty (omitempty): the others are always written. */
const CORE_OMITEMPTY = ['reason', 'message', 'count', 'type', 'series', 'action', 'related'];
const EVENTS_OMITEMPTY = [
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  'related',
  'note',
  'type',
  'deprecatedCount',
];

function omitEmpty(o: Rec, keys: string[]): Rec {
  for (const k of keys) {
    const v = o[k];
    if (v === undefined || v === null || v === '' || v === 0) delete o[k];
  }
  return o;
}

/** The core/v1 (stored) form of an events.k8s.io/v1 Event. */
export function eventToCore(e: KubeObject): KubeObject {
  const o = e as Rec;
  const out: Rec = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: o.metadata,
    involvedObject: o.regarding ?? {},
    reason: o.reason,
    message: o.note,
    source: o.deprecatedSource ?? {},
    firstTimestamp: o.deprecatedFirstTimestamp ?? null,
    lastTimestamp: o.deprecatedLastTimestamp ?? null,
    count: o.deprecatedCount,
    type: o.type,
    eventTime: o.eventTime ?? null,
    series: o.series,
    action: o.action,
    related: o.related,
    reportingComponent: o.reportingController ?? '',
    reportingInstance: o.reportingInstance ?? '',
  };
  return omitEmpty(out, CORE_OMITEMPTY);
}

/** The events.k8s.io/v1 form of a stored (core/v1) Event. */
export function eventFromCore(c: KubeObject): KubeObject {
  const o = c as Rec;
  const out: Rec = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: o.metadata,
    eventTime: o.eventTime ?? null,
    series: o.series,
    reportingController: o.reportingComponent,
    reportingInstance: o.reportingInstance,
    action: o.action,
    reason: o.reason,
    regarding: o.involvedObject ?? {},
    related: o.related,
    note: o.message,
    type: o.type,
    deprecatedSource: o.source ?? {},
    deprecatedFirstTimestamp: o.firstTimestamp ?? null,
    deprecatedLastTimestamp: o.lastTimestamp ?? null,
    deprecatedCount: o.count,
  };
  return omitEmpty(out, EVENTS_OMITEMPTY);
}

/** A core/v1 Event as its Go struct writes it (the empty omitempty members left out). */
export function normalizeCoreEvent(e: KubeObject): void {
  omitEmpty(e as Rec, CORE_OMITEMPTY);
}

const zeroTime = (v: unknown): boolean => v === undefined || v === null || v === '';

/** legacyValidateEvent: the rules every version's events follow (on the internal form). */
function legacyErrors(e: Rec, namespace: string, v1: boolean): FieldCause[] {
  const errs: FieldCause[] = [];
  const io = rec(e.involvedObject);
  const ioNs = str(io.namespace);
  const controllerField = v1 ? 'reportingComponent' : 'reportingController';
  if (zeroTime(e.eventTime)) {
    if (!ioNs) {
      if (namespace !== '' && namespace !== 'default')
        errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    } else if (namespace !== ioNs)
      errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
  } else {
    if (!ioNs && namespace !== 'default' && namespace !== 'kube-system')
      errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    const controller = str(e.reportingComponent);
    if (!controller) errs.push(required(controllerField));
    for (const m of qualifiedNameErrors(controller)) errs.push(invalid(controllerField, controller, m));
    const instance = str(e.reportingInstance);
    if (!instance) errs.push(required('reportingInstance'));
    if (instance.length > 128) errs.push(invalid('reportingInstance', '', 'can have at most 128 characters'));
    const action = str(e.action);
    if (!action) errs.push(required('action'));
    if (action.length > 128) errs.push(invalid('action', '', 'can have at most 128 characters'));
    const reason = str(e.reason);
    if (!reason) errs.push(required('reason'));
    if (reason.length > 128) errs.push(invalid('reason', '', 'can have at most 128 characters'));
    if (str(e.message).length > 1024) errs.push(invalid('message', '', 'can have at most 1024 characters'));
  }
  return errs;
}

function seriesErrors(e: Rec): FieldCause[] {
  if (!isObject(e.series)) return [];
  const errs: FieldCause[] = [];
  const s = e.series;
  if (typeof s.count !== 'number' || s.count < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (zeroTime(s.lastObservedTime)) errs.push(required('series.lastObservedTime'));
  return errs;
}

/**
 * ValidateEventCreate / ValidateEventUpdate for an event written through `version` (`v1` or
 * `events.k8s.io/v1`), given in its core/v1 form (`old` too).
 */
export function eventErrors(
  core: KubeObject,
  old: KubeObject | undefined,
  version: 'v1' | 'events.k8s.io/v1',
): FieldCause[] {
  const e = core as Rec;
  const v1 = version === 'v1';
  const errs = legacyErrors(e, core.metadata?.namespace ?? '', v1);
  if (v1) return errs;
  if (!old) {
    errs.push(...seriesErrors(e));
    if (zeroTime(e.eventTime)) errs.push(required('eventTime'));
    if (e.type !== 'Normal' && e.type !== 'Warning')
      errs.push(invalid('type', '', `has invalid value: ${str(e.type)}`));
    if (!zeroTime(e.firstTimestamp)) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
    if (!zeroTime(e.lastTimestamp)) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
    if (typeof e.count === 'number' && e.count !== 0) errs.push(invalid('count', '', 'needs to be unset'));
    if (str(rec(e.source).component) || str(rec(e.source).host)) errs.push(invalid('source', '', 'needs to be unset'));
    return errs;
  }
  const o = old as Rec;
  if (!jsonEqual(e.series ?? null, o.series ?? null)) errs.push(...seriesErrors(e));
  const immutable = (field: string, a: unknown, b: unknown): void => {
    if (!jsonEqual(a ?? null, b ?? null)) errs.push(invalid(field, a ?? null, 'field is immutable'));
  };
  immutable('involvedObject', e.involvedObject, o.involvedObject);
  immutable('reason', e.reason ?? '', o.reason ?? '');
  immutable('message', e.message ?? '', o.message ?? '');
  immutable('source', e.source, o.source);
  immutable('firstTimestamp', e.firstTimestamp, o.firstTimestamp);
  immutable('lastTimestamp', e.lastTimestamp, o.lastTimestamp);
  immutable('count', e.count ?? 0, o.count ?? 0);
  immutable('reason', e.reason ?? '', o.reason ?? '');
  immutable('type', e.type ?? '', o.type ?? '');
  if (str(e.eventTime).slice(0, 26) !== str(o.eventTime).slice(0, 26)) immutable('eventTime', e.eventTime, o.eventTime);
  immutable('action', e.action ?? '', o.action ?? '');
  immutable('related', e.related, o.related);
  immutable('reportingController', e.reportingComponent ?? '', o.reportingComponent ?? '');
  immutable('reportingInstance', e.reportingInstance ?? '', o.reportingInstance ?? '');
  return errs;
}

/** The field selectors of core/v1 events (ToSelectableFields), read from the stored form. */
export function coreEventFields(): Record<string, (o: KubeObject) => string> {
  const ref =
    (k: string) =>
    (o: KubeObject): string =>
      str(rec((o as Rec).involvedObject)[k]);
  return {
    'involvedObject.kind': ref('kind'),
    'involvedObject.namespace': ref('namespace'),
    'involvedObject.name': ref('name'),
    'involvedObject.uid': ref('uid'),
    'involvedObject.apiVersion': ref('apiVersion'),
    'involvedObject.resourceVersion': ref('resourceVersion'),
    'involvedObject.fieldPath': ref('fieldPath'),
    reason: (o) => str((o as Rec).reason),
    reportingComponent: (o) => str((o as Rec).reportingComponent),
    source: (o) => str(rec((o as Rec).source).component) || str((o as Rec).reportingComponent),
    type: (o) => str((o as Rec).type),
  };
}

/** The field selectors of events.k8s.io/v1 events: its names, mapped to the stored fields (AddFieldLabelConversionsForEvent). */
export function eventsV1Fields(): Record<string, (o: KubeObject) => string> {
  const core = coreEventFields();
  const out: Record<string, (o: KubeObject) => string> = {
    reason: core.reason,
    reportingController: core.reportingComponent,
    type: core.type,
  };
  for (const k of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'])
    out[`regarding.${k}`] = core[`involvedObject.${k}`]!;
  return out;
}

/** core/v1 events' write hook: the Go struct's form, then the v1 rules. */
export function prepareCoreEvent(obj: KubeObject, old: KubeObject | undefined): FieldCause[] {
  normalizeCoreEvent(obj);
  return eventErrors(obj, old, 'v1');
}

/** events.k8s.io/v1 events' write hook: the rules of that version, on the internal form. */
export function prepareEventsV1(obj: KubeObject, old: KubeObject | undefined): FieldCause[] {
  return eventErrors(eventToCore(obj), old ? eventToCore(old) : undefined, 'events.k8s.io/v1');
}
