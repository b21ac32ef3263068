// The CEL environment rules run in: CEL's standard library (from @bufbuild/cel), its strings
// extension, and the Kubernetes libraries we implement (url, lists, regex, ip/cidr, quantity).
import { celEnv, type CelEnv, type CelFunc } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { ipFuncs } from './ip.js';
import { listFuncs } from './lists.js';
import { quantityFuncs } from './quantity.js';
import { re2Engine } from './regex-cache.js';
import { urlFuncs } from './url.js';

/** Every function added to CEL's standard library. */
export const kubernetesFuncs: readonly CelFunc[] = [...strings, ...urlFuncs, ...listFuncs, ...ipFuncs, ...quantityFuncs];

let env: CelEnv | undefined;

/** The shared environment (built once). */
export function kubernetesCelEnv(): CelEnv {
  env ??= celEnv({ funcs: [...kubernetesFuncs], re2: re2Engine });
  return env;
}

// Operators and macros the planner implements itself (not looked up as functions).
const BUILTIN = new Set(['_&&_', '_||_', '_?_:_', '@not_strictly_false', '!_', '@in', '_[_]', 'has']);

/** True when `name` (a function, method or operator) can be evaluated in {@link kubernetesCelEnv}. */
export function isKnownFunction(name: string): boolean {
  return BUILTIN.has(name) || kubernetesCelEnv().funcs.find(name) !== undefined;
}
