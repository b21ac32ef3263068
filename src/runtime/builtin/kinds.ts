// The built-in kinds as crdgen/runtime exports them: the generated types and descriptors
// (./index.ts, from the real kube-apiserver's OpenAPI v3 document, `npm run builtins:update`),
// and the names the Event kinds had when they were hand-written: `CoreEvent` is core/v1's Event,
// `EventsV1Event` the events.k8s.io/v1 one.
export * from './index.js';
export type { CoreV1Event as CoreEvent, CoreV1EventList as CoreEventList } from './index.js';
export { CoreV1EventResource as CoreEventResource } from './index.js';
