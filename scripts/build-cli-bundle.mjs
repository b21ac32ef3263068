// The third part of `npm run build`: the CLI as one esbuild bundle (dist/cli-bundle/), which
// bin/crdgen.js runs. Measured reason (docs/BENCHMARKS.md §2): loading the CLI from dist/'s ~150
// separate modules and their packages cost ~0.3 s of module resolution and file reads at every
// start; the bundle is a handful of files.
// - Packages the CLI loads on demand stay outside (ts-morph and typescript for TypeScript input,
//   prettier for --format, ajv and handlebars for the rare fallbacks, yaml for positions, etcd3
//   and client-node for `testenv --etcd` and auth plugins): dynamic imports become chunks
//   (--splitting), so they still cost nothing until used.
// - dist/cli-bundle/ sits at the depth of dist/cli/, so every `import.meta.url`-relative path in
//   the sources (templates/, schema/, bin/) still resolves; the precompiled .cjs files that
//   modules load next to themselves are copied in.
import { copyFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');
const out = join(dist, 'cli-bundle');
rmSync(out, { recursive: true, force: true });
await build({
  // the worker threads of a large generate/verify run (src/cli/stream.ts) load stream-worker.js beside the chunks
  entryPoints: { main: join(dist, 'cli', 'main.js'), 'stream-worker': join(dist, 'cli', 'stream-worker.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // jsonc-parser: its UMD main requires its parts at run time, which a bundle cannot follow
  external: [
    'ts-morph',
    'typescript',
    'prettier',
    'ajv',
    'ajv/*',
    'handlebars',
    'yaml',
    'etcd3',
    '@kubernetes/client-node',
    'jsonc-parser',
    './crd-shape.validate.cjs',
    './templates.precompiled.cjs',
  ],
  // bundled CommonJS packages (commander) call require(): give the ESM bundle one
  banner: {
    js: "import { createRequire as __crdgenRequire } from 'node:module'; const require = __crdgenRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
});
copyFileSync(join(dist, 'input', 'crd', 'crd-shape.validate.cjs'), join(out, 'crd-shape.validate.cjs'));
copyFileSync(join(dist, 'emit', 'templates.precompiled.cjs'), join(out, 'templates.precompiled.cjs'));
