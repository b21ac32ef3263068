// The CEL library rules run with: CEL's standard functions and strings extension, and the Kubernetes
// libraries (url, lists, regex, ip/cidr, quantity, optional, semver, format) and cel-go's lists extension. Where two libraries define one name (e.g.
// `indexOf` on strings and on lists), the implementations are tried in turn on "no such overload".
import { extListsLibrary } from './ext-lists.js';
import { ipLibrary } from './ip.js';
import { formatLibrary } from './k8s-format.js';
import { semverLibrary, semverText } from './semver.js';
import { listsLibrary } from './lists.js';
import { optionalLibrary } from './optional.js';
import { quantityLibrary } from './quantity.js';
import { stdlib } from './stdlib.js';
import { urlLibrary } from './url.js';
import { NoOverloadError, noOverload, Opaque, type CelFn, type CelLibrary } from './value.js';

function chain(a: CelFn, b: CelFn): CelFn {
  return (t, args) => {
    try {
      return a(t, args);
    } catch (e) {
      if (e instanceof NoOverloadError) return b(t, args);
      throw e;
    }
  };
}

function merge(libs: readonly CelLibrary[]): CelLibrary {
  const out: CelLibrary = { functions: {}, methods: {} };
  for (const lib of libs) {
    for (const part of ['functions', 'methods'] as const) {
      for (const [name, fn] of Object.entries(lib[part])) {
        const prev = out[part][name];
        out[part][name] = prev ? chain(prev, fn) : fn;
      }
    }
  }
  return out;
}

/** Every function and method a rule may call. */
export const kubernetesLibrary: CelLibrary = merge([
  stdlib,
  urlLibrary,
  listsLibrary,
  extListsLibrary,
  ipLibrary,
  quantityLibrary,
  optionalLibrary,
  semverLibrary,
  formatLibrary,
  {
    functions: {
      string: (_t, a) =>
        a[0] instanceof Opaque && a[0].kind === 'semver'
          ? semverText(a[0].value as never)
          : noOverload('string', a[0] ?? null),
    },
    methods: {},
  },
]);
