// The controller builder's semantics on the real control plane (etcd + kube-apiserver v1.37).
import { builderSuite } from './behaviour.js';
import { realEnv } from './support.js';

builderSuite(realEnv);
