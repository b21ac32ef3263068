// crdgen/testing: an in-process Kubernetes API server for tests (envtest's role), and the
// real control plane (etcd + kube-apiserver, optionally with workloads) behind the same handle.
export { startTestApiServer } from './server.js';
export type { TestApiServer, TestApiServerOptions, TestApiServerFaults } from './server.js';
export { startControlPlane } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions, ComponentExit } from './control-plane.js';
export type { ApiServerHandle } from './handle.js';
export type { FaultInjector, FailureSpec } from './faults.js';
export type { KubeconfigDoc } from './kubeconfig.js';
export type { Storage, StorageEvent, StorageList, StorageWatch, StorageErrorCode } from './storage/storage.js';
export { StorageError } from './storage/storage.js';
export { MemoryStorage } from './storage/memory.js';
export { checkConversionRoundTrip, objectArbitrary, ConversionRoundTripError } from './conversion-property.js';
export type { RoundTripOptions } from './conversion-property.js';
export { generateCertificateSet } from './tls.js';
export type { CertificateSet } from './tls.js';
export type { WebhookInstallOptions, InstalledWebhooks } from './webhook-install.js';
