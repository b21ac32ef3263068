// Runs the rule/object tables of apiextensions-apiserver's CEL validation tests
// (pkg/apiserver/schema/cel/validation_test.go TestValidationExpressions and
// TestValidationExpressionsAtSchemaLevels, extracted to ../shared/conformance/cel/k8s-validation.json):
// each rule is put on the schema's root (as the upstream test does), compiled against the schema and
// evaluated on the object through crdgen's rule evaluator; `valid` rules must give no error, each
// `errors` rule an error containing the table's text; for the schema-level cases, the schema's own
// rules must give errors containing every `errorsAnyRule` text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuleEvaluator } from '../../../src/runtime/cel/rules.js';
import { type FieldError, reduceSchema } from '../../../src/runtime/validation/core.js';
import { compileNode } from '../../../src/runtime/validation/node.js';
import { CEL_DATA, type Outcome } from './cel-spec.js';

interface Case {
  test: string;
  name: string;
  schema: Record<string, unknown>;
  obj: unknown;
  oldObj?: unknown;
  isRoot?: boolean;
  valid?: string[];
  errors?: { rule: string; contains: string }[];
  errorsAnyRule?: string[];
  expectSkipped?: boolean;
  expectedCost?: number;
}

/** `{"$int": "…"}` → bigint (integers beyond 2^53). */
function revive(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(revive);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Object.keys(o).length === 1 && typeof o.$int === 'string') {
      const b = BigInt(o.$int);
      return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revive(x)]));
  }
  return v;
}

function errorsFor(schema: Record<string, unknown>, c: Case): string[] {
  const root = compileNode(reduceSchema(schema));
  const ev = createRuleEvaluator(root, { eager: false, isResourceRoot: c.isRoot ?? false });
  const errs: FieldError[] = [];
  ev.validate(c.obj, c.oldObj === undefined ? undefined : c.oldObj, errs);
  return errs.map((e) => `${e.field === '<nil>' ? 'root' : `root.${e.field}`}: ${e.message}`);
}

function withRule(schema: Record<string, unknown>, rule: string): Record<string, unknown> {
  return { ...schema, 'x-kubernetes-validations': [{ rule }] };
}

/** Runs every case; one outcome per rule or expected error. */
export function runK8sValidation(file = join(CEL_DATA, 'k8s-validation.json')): Outcome[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { cases: Case[] };
  const out: Outcome[] = [];
  for (const raw of data.cases) {
    const c = {
      ...raw,
      obj: revive(raw.obj),
      oldObj: raw.oldObj === undefined ? undefined : revive(raw.oldObj),
      schema: revive(raw.schema) as Record<string, unknown>,
    };
    const base = `${c.test}/${c.name}`;
    for (const rule of c.valid ?? []) {
      const id = `${base} valid: ${rule}`;
      const errs = errorsFor(withRule(c.schema, rule), c);
      out.push(errs.length ? { id, status: 'fail', detail: errs.join(' | ') } : { id, status: 'pass' });
    }
    for (const e of c.errors ?? []) {
      const id = `${base} error: ${e.rule}`;
      const errs = errorsFor(withRule(c.schema, e.rule), c);
      out.push(
        errs.some((m) => m.includes(e.contains))
          ? { id, status: 'pass' }
          : {
              id,
              status: 'fail',
              detail: `expected an error containing ${JSON.stringify(e.contains)}, got ${JSON.stringify(errs)}`,
            },
      );
    }
    if (c.errorsAnyRule) {
      const errs = errorsFor(c.schema, c);
      for (const want of c.errorsAnyRule) {
        const id = `${base} errors: ${want}`;
        out.push(
          errs.some((m) => m.includes(want))
            ? { id, status: 'pass' }
            : {
                id,
                status: 'fail',
                detail: `expected an error containing ${JSON.stringify(want)}, got ${JSON.stringify(errs)}`,
              },
        );
      }
    }
  }
  return out;
}
