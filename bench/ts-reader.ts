// Benchmark (on demand, not part of `npm test`): the TypeScript reader on 200 annotated kinds in
// 50 files, against `tsc --noEmit` type-checking the same files.
//   node --import tsx bench/ts-reader.ts [kinds=200] [files=50]   (KEEP=1 keeps the generated folder)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const kinds = Number(process.argv[2] ?? 200);
const fileCount = Number(process.argv[3] ?? 50);
const repo = resolve(import.meta.dirname, '..');

/** One file of `n` kinds, each with a spec, a status and nested types, importing shared types. */
function apiFile(index: number, n: number): string {
  let out = `// +groupName=bench${index % 5}.example.com\n// +versionName=v1\n`;
  out += `import type { ObjectMeta, int32, int64, Time, IntOrString, Quantity } from 'crdgen/types';\n`;
  out += `import type { Condition, Selector } from './shared.js';\n\n`;
  for (let k = 0; k < n; k++) {
    const K = `Kind${index}x${k}`;
    out += `/** ${K} is benchmark kind ${k} of file ${index}. */
// +genclient
// +kubebuilder:resource:shortName=k${index}x${k},categories=bench
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name=Ready,type=string,JSONPath=.status.phase
export interface ${K} {
  apiVersion: 'bench${index % 5}.example.com/v1';
  kind: '${K}';
  metadata: ObjectMeta;
  spec: ${K}Spec;
  status?: ${K}Status;
}

export interface ${K}Spec {
  /** Name of the thing. */
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=63
  name: string;
  // +kubebuilder:validation:Minimum=0
  // +kubebuilder:validation:Maximum=100
  replicas?: int32;
  size?: Quantity;
  port?: IntOrString;
  mode: 'Fast' | 'Safe' | 'Off';
  // +listType=map
  // +listMapKey=name
  containers: ${K}Container[];
  labels?: Record<string, string>;
  selector?: Selector;
  // +kubebuilder:default=30
  timeoutSeconds?: int64;
  suspend?: boolean | null;
}

export interface ${K}Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
}

export interface ${K}Status {
  phase?: string;
  observedGeneration?: int64;
  lastUpdated?: Time;
  // +listType=map
  // +listMapKey=type
  conditions?: Condition[];
}

`;
  }
  return out;
}

const SHARED = `import type { Time, int64 } from 'crdgen/types';
/** A status condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: int64;
  lastTransitionTime: Time;
  reason: string;
  message: string;
}
export interface Selector {
  matchLabels?: Record<string, string>;
}
`;

const dir = mkdtempSync(join(tmpdir(), 'crdgen-bench-ts-'));
try {
  const per = Math.ceil(kinds / fileCount);
  mkdirSync(join(dir, 'api'));
  let made = 0;
  for (let i = 0; i < fileCount && made < kinds; i++) {
    const n = Math.min(per, kinds - made);
    writeFileSync(join(dir, 'api', `types${i}.ts`), apiFile(i, n));
    made += n;
  }
  writeFileSync(join(dir, 'api', 'shared.ts'), SHARED);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        types: [],
        paths: { 'crdgen/types': [join(repo, 'src/types/index.ts')] },
      },
      include: ['api'],
    }),
  );

  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const { readTypeScript } = await import('../src/input/ts/reader.js');
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  const r = readTypeScript(['api'], { cwd: dir });
  const t2 = performance.now();
  const cpu = process.cpuUsage(c0);
  const readCpu = process.cpuUsage(c1);
  const nKinds = r.model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds)).length;
  if (r.diagnostics.length > 0 || nKinds !== made) {
    throw new Error(
      `reader: ${nKinds} kinds, ${r.diagnostics.length} diagnostics: ${JSON.stringify(r.diagnostics[0])}`,
    );
  }
  const t3 = performance.now();
  // GNU time prints the child's user and system CPU seconds as the last line of stderr.
  const tsc = spawnSync(
    '/usr/bin/time',
    ['-f', '%U %S', process.execPath, join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  const t4 = performance.now();
  if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
  const [user, sys] = (tsc.stderr.trim().split('\n').pop() ?? '0 0').split(' ').map(Number);
  const tscCpu = ((user ?? 0) + (sys ?? 0)) * 1000;
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  console.log(`${made} kinds in ${fileCount} files (+ shared.ts)`);
  console.log(
    `reader: load reader + ts-morph ${ms(t1 - t0)}, read ${ms(t2 - t1)} (${ms((readCpu.user + readCpu.system) / 1000)} CPU), total ${ms(t2 - t0)} wall, ${ms((cpu.user + cpu.system) / 1000)} CPU`,
  );
  console.log(`tsc --noEmit (separate process, full lib, strict): ${ms(t4 - t3)} wall, ${ms(tscCpu)} CPU`);
} finally {
  if (!process.env['KEEP']) rmSync(dir, { recursive: true, force: true });
  else console.log(dir);
}
