// crdgen/runtime's controller layer: what a generated operator's controller.ts and
// main.ts import (sample-controller's helpers, controller-runtime's manager pieces).
export * from './logger.js';
export * from './signals.js';
export * from './http-server.js';
export * from './metrics.js';
export * from './events.js';
export * from './leader-election.js';
export * from './handlers.js';
export * from './flags.js';
export * from './manager.js';
export { sleep } from './sleep.js';
export * from './transform.js';
export * from './in-flight.js';
export * from './wait-synced.js';
