// Which generator owns an output path. The writer removes a stale generated file only when its
// owner ran (a run of `--generators crd` never removes the types another run wrote), and `verify`
// reports stale files by the same rule. Ownership is read from the path alone — the layout each
// generator writes — so it holds for files no emitter produces any more (a kind removed from the
// CRD). test/unit/cli/ownership.test.ts checks every emitter's output against these patterns.

/**
 * Output paths per generator, as patterns over POSIX path segments: `*` is one segment, a final
 * `**` is any number of them (at least one). Keep in step with the emitters (see the test).
 */
export const OUTPUT_PATTERNS: Readonly<Record<string, readonly string[]>> = {
  types: ['apis/*/*/types.ts'],
  deepcopy: ['apis/*/*/deepcopy.ts'],
  register: ['apis/*/*/register.ts'],
  validators: ['apis/*/*/validation.ts'],
  clientset: ['clientset/clientset.ts', 'clientset/typed/**'],
  fake: ['clientset/fake/**'],
  listers: ['listers/**'],
  informers: ['informers/**'],
  applyconfig: ['applyconfigurations/**'],
  // before controller: the first pattern that matches owns a path
  webhooks: [
    'controllers/*/webhooks.ts',
    'controllers/*/admission.ts',
    'controllers/*/conversion.generated.ts',
    'controllers/*/conversion.ts',
    'controllers/*/conversion.test.ts',
    'controllers/*/config/webhook/**',
    'controllers/*/config/certmanager/**',
    // the flat layout's, removed as stale by a run of the webhooks generator
    'controllers/*/config/webhooks.yaml',
  ],
  controller: ['controllers/**'],
  crd: ['config/crd/**'],
};

function matches(pattern: string, path: string): boolean {
  const ps = pattern.split('/');
  const xs = path.split('/');
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (p === '**' && i === ps.length - 1) return xs.length > i;
    if (i >= xs.length || (p !== '*' && p !== xs[i])) return false;
  }
  return xs.length === ps.length;
}

/** The generator whose layout `path` (relative to the output folder, POSIX) belongs to, if any. */
export function ownerOf(path: string): string | undefined {
  for (const [name, patterns] of Object.entries(OUTPUT_PATTERNS))
    if (patterns.some((p) => matches(p, path))) return name;
  return undefined;
}

/**
 * Which stale generated files a run of `selected` generators may remove: those whose owner is
 * selected, and — only when the run includes every default generator (`full`) — those no
 * generator's layout claims (left by an older layout).
 */
export function staleFilter(selected: readonly string[], full: boolean): (path: string) => boolean {
  const chosen = new Set(selected);
  return (path) => {
    const owner = ownerOf(path);
    return owner === undefined ? full : chosen.has(owner);
  };
}
