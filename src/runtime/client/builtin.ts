// The names the runtime's built-in kinds had when they were hand-written, kept for code that
// imports them from here: the types and descriptors themselves are generated from the real
// kube-apiserver's OpenAPI v3 document (src/runtime/builtin/, `npm run builtins:update`).
// `CoreEvent` and `EventsV1Event` are the two Event kinds (core/v1 and events.k8s.io/v1).
export * from '../builtin/index.js';
export type { CoreV1Event as CoreEvent, CoreV1EventList as CoreEventList } from '../builtin/index.js';
export { CoreV1EventResource as CoreEventResource } from '../builtin/index.js';
