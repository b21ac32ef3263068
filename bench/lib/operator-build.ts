// Builds the operators the operator benchmark runs, each as plain JavaScript for `node`:
// - the generated DatabaseManager operator compiled with tsc against the built package
//   (`crdgen/runtime` = dist/ with its node_modules: what `npm run build` gives a user);
// - the same operator bundled into one file with esbuild, with the banner and node options of
//   the generated Dockerfile (what its image runs);
// - the client-node operator of ./operator-client-node.ts, transpiled (not bundled) so that it
//   loads @kubernetes/client-node from node_modules as a user's would.
// Everything goes to a folder under the repository (so node_modules resolves) that the caller removes.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, version as esbuildVersion } from 'esbuild';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { writeFiles } from '../../src/emit/writer.js';
import { OPERATOR_BUNDLE_BANNER, OPERATOR_ESBUILD_VERSION } from '../../src/generate/controller.js';
import { DM_CRD, PKG, REPO } from './env.js';

/** The entry points of the built operators. */
export interface BuiltOperators {
  /** The generated operator, tsc output (main.js). */
  crdgen: string;
  /** The generated operator bundled by esbuild into one ES module, as the generated Dockerfile builds it. */
  crdgenBundle: string;
  /** The bundle of the same operator with its owned kinds cached whole (controller.ts's metadataOnly taken out). */
  crdgenWholeBundle: string;
  /** The node options of the generated Dockerfile's ENTRYPOINT (between `node` and the script). */
  imageNodeOptions: string[];
  /** The client-node operator (one ES module importing @kubernetes/client-node). */
  clientNode: string;
}

/** Generates, compiles and bundles the operators into `out`. */
export async function buildOperators(out: string): Promise<BuiltOperators> {
  mkdirSync(out, { recursive: true });
  const r = readCrdInputs([{ file: 'fixtures/databasemanager/crd.yaml', content: readFileSync(DM_CRD) }]);
  const runtimeImport = join(PKG, 'dist', 'runtime', 'index.js');
  await writeFiles(
    join(out, 'src'),
    runEmitters(
      r.model,
      createEmitContext({ sources: r.model.sources, runtimeImport, controllers: ['DatabaseManager'] }),
    ),
  );
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    skipLibCheck: true,
    outDir: 'js',
    rootDir: 'src',
    types: ['node'],
    typeRoots: [join(REPO, 'node_modules', '@types')],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src/**/*.ts'] }));
  execFileSync(
    process.execPath,
    [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(out, 'tsconfig.json')],
    { stdio: 'inherit' },
  );
  const crdgen = join(out, 'js', 'controllers', 'databasemanager', 'main.js');
  const crdgenBundle = join(out, 'bundle', 'operator.mjs');
  await build({
    entryPoints: [crdgen],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: crdgenBundle,
    banner: { js: OPERATOR_BUNDLE_BANNER },
    logLevel: 'error',
  });
  // the same operator with its owned kinds cached whole: controller.ts's metadata-only watches taken out
  const whole = join(out, 'js-whole');
  cpSync(join(out, 'js'), whole, { recursive: true });
  const controllerJs = join(whole, 'controllers', 'databasemanager', 'controller.js');
  const metadataOnly = readFileSync(controllerJs, 'utf8');
  const cachedWhole = metadataOnly
    .replace(/^\s*manager\.scope\(\w+, \{ keepManagedFields: true \}\);\n/gm, '')
    .replace(/(manager\.informer|\.owns)\((\w+), \{ metadataOnly: true \}\)/g, '$1($2)');
  if (
    cachedWhole === metadataOnly ||
    /(informer|owns)\(\w+, \{ metadataOnly|keepManagedFields: true \}\);/.test(cachedWhole)
  )
    throw new Error(`the generated controller.js no longer reads as expected: ${controllerJs}`);
  writeFileSync(controllerJs, cachedWhole);
  const crdgenWholeBundle = join(out, 'bundle', 'operator-whole.mjs');
  await build({
    entryPoints: [join(whole, 'controllers', 'databasemanager', 'main.js')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: crdgenWholeBundle,
    banner: { js: OPERATOR_BUNDLE_BANNER },
    logLevel: 'error',
  });
  if (esbuildVersion !== OPERATOR_ESBUILD_VERSION)
    process.stderr.write(
      `note: bundling with esbuild ${esbuildVersion}; the generated Dockerfile pins ${OPERATOR_ESBUILD_VERSION}\n`,
    );
  const dockerfile = readFileSync(join(out, 'src', 'controllers', 'databasemanager', 'Dockerfile'), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile);
  if (!entrypoint) throw new Error('the generated Dockerfile has no exec-form ENTRYPOINT');
  const argv = JSON.parse(entrypoint[1]) as string[];
  const imageNodeOptions = argv.slice(1, -1);
  const clientNode = join(out, 'client-node', 'operator.mjs');
  await build({
    entryPoints: [join(REPO, 'bench', 'lib', 'operator-client-node.ts')],
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: clientNode,
    logLevel: 'error',
  });
  return { crdgen, crdgenBundle, crdgenWholeBundle, imageNodeOptions, clientNode };
}
