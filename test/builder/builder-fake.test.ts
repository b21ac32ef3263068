// The controller builder's semantics on the fake clientset's backend (FakeClientBackend).
import { builderSuite } from './behaviour.js';
import { fakeEnv } from './support.js';

builderSuite(fakeEnv);
