// Runs the test tables of Kubernetes' CEL libraries (k8s.io/apiserver pkg/cel/library
// {ip,cidr,quantity,semver,format}_test.go, extracted to ../shared/conformance/cel/k8s-library.json)
// against crdgen's CEL: each expression is compiled (type-checked) and evaluated; its value, its
// runtime error text or its compile error text is compared with the table's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { compileChecked } from '../../../src/runtime/cel/compile.js';
import { CelEvalError, Opaque, Optional, Uint, type Value } from '../../../src/runtime/cel/value.js';
import { CEL_DATA, type Outcome } from './cel-spec.js';
import { formatIP } from '../../../src/runtime/validation/net.js';
import { parseQuantity } from '../../../src/runtime/cel/quantity.js';
import { semverText } from '../../../src/runtime/cel/semver.js';

interface Expect {
  t: string;
  v?: unknown;
  none?: boolean;
  of?: Expect;
  pattern?: string;
  regex?: boolean;
  patterns?: string[];
}

interface Case {
  source: string;
  test: string;
  name: string;
  expr: string;
  expect: Expect;
  version?: number;
}

function matches(e: Expect, v: Value): string | undefined {
  const bad = (why: string) => `got ${why}, expected ${JSON.stringify(e)}`;
  switch (e.t) {
    case 'bool':
      return v === e.v ? undefined : bad(inspect(v));
    case 'int':
      return typeof v === 'bigint' && v === BigInt(e.v as string) ? undefined : bad(inspect(v));
    case 'uint':
      return v instanceof Uint && v.v === BigInt(e.v as string) ? undefined : bad(inspect(v));
    case 'double':
      return typeof v === 'number' && v === Number(e.v) ? undefined : bad(inspect(v));
    case 'string':
      return v === e.v ? undefined : bad(JSON.stringify(v));
    case 'list': {
      const want = e.v as Expect[];
      if (!Array.isArray(v) || v.length !== want.length) return bad(inspect(v));
      for (let i = 0; i < want.length; i++) {
        const m = matches(want[i], v[i]);
        if (m) return m;
      }
      return undefined;
    }
    case 'optional':
      if (!(v instanceof Optional)) return bad(inspect(v));
      if (e.none) return v.value === undefined ? undefined : bad('optional.of(…)');
      return v.value === undefined ? bad('optional.none()') : matches(e.of!, v.value);
    case 'ip':
    case 'cidr':
    case 'quantity':
    case 'semver': {
      if (!(v instanceof Opaque) || v.kind !== e.t) return bad(inspect(v));
      const text = e.v as string;
      if (e.t === 'ip') return formatIP(v.value as never) === text ? undefined : bad(v.canonical);
      if (e.t === 'cidr') return v.canonical === text ? undefined : bad(v.canonical);
      if (e.t === 'semver') return semverText(v.value as never) === text ? undefined : bad(v.canonical);
      const q = parseQuantity(text)!;
      return v.canonical === `${q.n}/${q.d}` ? undefined : bad(v.canonical);
    }
  }
  return `unknown expectation ${e.t}`;
}

function runOne(c: Case): Outcome {
  const id = `${c.source.replace(/^pkg\/cel\/library\//, '')} ${c.test}/${c.name}`;
  const r = compileChecked(c.expr, new Map());
  const e = c.expect;
  if (e.t === 'compileError') {
    if (r.ok) return { id, status: 'fail', detail: `compiled; expected a compile error ${JSON.stringify(e.patterns)}` };
    const miss = (e.patterns ?? []).find((p) => !new RegExp(p).test(r.message));
    return miss
      ? { id, status: 'fail', detail: `compile error ${JSON.stringify(r.message)} does not match /${miss}/` }
      : { id, status: 'pass' };
  }
  if (!r.ok) return { id, status: 'fail', detail: `does not compile: ${r.message}` };
  let v: Value;
  try {
    v = r.program.run(null);
  } catch (err) {
    if (!(err instanceof CelEvalError)) return { id, status: 'fail', detail: `threw ${(err as Error).message}` };
    if (e.t !== 'runtimeError') return { id, status: 'fail', detail: `error ${err.message}` };
    const ok = e.regex ? new RegExp(e.pattern!).test(err.message) : err.message.includes(e.pattern!);
    return ok
      ? { id, status: 'pass' }
      : {
          id,
          status: 'fail',
          detail: `error ${JSON.stringify(err.message)}, expected ${e.regex ? '/' : '"'}${e.pattern}${e.regex ? '/' : '"'}`,
        };
  }
  if (e.t === 'runtimeError') return { id, status: 'fail', detail: `no error; expected ${e.pattern}` };
  const m = matches(e, v);
  return m ? { id, status: 'fail', detail: m } : { id, status: 'pass' };
}

/** Runs every table entry. */
export function runK8sLibrary(file = join(CEL_DATA, 'k8s-library.json')): Outcome[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { tests: Case[] };
  return data.tests.map(runOne);
}
