// crdgen/testing: an in-process Kubernetes API server for tests.
export {};
