// Generates the DatabaseManager fixture into a temporary folder under the repo and
// imports the generated clientset, fake clientset and informers through tsx.
// The generated code imports the runtime by this repo's absolute src path, so the test
// and the generated code share one runtime instance and no build is needed.
import { mkdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { ROOT, writeTree } from '../golden/support.js';
// Types only: the committed golden tree is exactly what the generator writes.
import type { Clientset } from '../../fixtures/databasemanager/expected/clientset/clientset.js';
import type { createFakeClientset } from '../../fixtures/databasemanager/expected/clientset/fake/clientset.js';
import type { newSharedInformerFactory } from '../../fixtures/databasemanager/expected/informers/factory.js';
import type { databaseManager } from '../../fixtures/databasemanager/expected/applyconfigurations/coolops.cn/v1alpha1/databasemanager.js';
export type { DatabaseManager } from '../../fixtures/databasemanager/expected/apis/coolops.cn/v1alpha1/types.js';
export type { ClientsetInterface } from '../../fixtures/databasemanager/expected/clientset/clientset.js';

/** The DatabaseManager CRD file. */
export const DM_CRD = join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml');

/** The generated modules. */
export interface Generated {
  Clientset: typeof Clientset;
  createFakeClientset: typeof createFakeClientset;
  newSharedInformerFactory: typeof newSharedInformerFactory;
  databaseManager: typeof databaseManager;
  /** Removes the generated folder. */
  cleanup(): void;
}

/** A fixture generated into a temporary folder under the repo: import its files, then clean up. */
export interface GeneratedTree {
  /** Imports `<tree>/<path>` (a .ts path) through tsx. */
  import<T>(path: string): Promise<T>;
  /** Removes the folder. */
  cleanup(): void;
}

/** Generates the CRD files `inputs` (repo-relative) with every default emitter. */
export function generateTree(inputs: string[]): GeneratedTree {
  const base = join(ROOT, 'test', 'integration', 'fixtures-out');
  mkdirSync(base, { recursive: true });
  const dir = join(base, `gen-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  const r = readCrdInputs(inputs.map((file) => ({ file, content: readFileSync(join(ROOT, file)) })));
  if (r.diagnostics.some((d) => d.severity === 'error'))
    throw new Error(`fixture has errors: ${JSON.stringify(r.diagnostics)}`);
  const runtimeImport = join(ROOT, 'src', 'runtime', 'index.js');
  writeTree(dir, runEmitters(r.model, createEmitContext({ sources: r.model.sources, runtimeImport })));
  return {
    import: async <T>(p: string): Promise<T> => (await import(pathToFileURL(join(dir, p)).href)) as T,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      try {
        rmdirSync(base); // only when empty
      } catch {
        /* other processes' folders remain */
      }
    },
  };
}

/** Generates the DatabaseManager fixture (all default emitters) and imports it. */
export async function loadGenerated(): Promise<Generated> {
  const tree = generateTree(['fixtures/databasemanager/crd.yaml']);
  const cs = await tree.import<{ Clientset: typeof Clientset }>('clientset/clientset.ts');
  const fake = await tree.import<{ createFakeClientset: typeof createFakeClientset }>('clientset/fake/clientset.ts');
  const inf = await tree.import<{ newSharedInformerFactory: typeof newSharedInformerFactory }>('informers/factory.ts');
  const ac = await tree.import<{ databaseManager: typeof databaseManager }>(
    'applyconfigurations/coolops.cn/v1alpha1/databasemanager.ts',
  );
  return {
    Clientset: cs.Clientset,
    createFakeClientset: fake.createFakeClientset,
    newSharedInformerFactory: inf.newSharedInformerFactory,
    databaseManager: ac.databaseManager,
    cleanup: () => tree.cleanup(),
  };
}
