// The controller builder's semantics on crdgen/testing's API server (startTestApiServer).
import { builderSuite } from './behaviour.js';
import { testenvEnv } from './support.js';

builderSuite(testenvEnv, { servesServices: true });
