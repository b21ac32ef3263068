// The part of the apiserver's CEL type check that decides whether a CRD is accepted: a field
// selected on an object of the schema must be one of its properties (`undefined field 'x'`).
// At a resource root only apiVersion, kind, metadata.name and metadata.generateName are visible
// besides the properties. Maps, int-or-string, preserve-unknown-fields and expressions are `dyn`.
import type { Node } from '../validation/node.js';

type T = { node: Node; root: boolean } | 'meta' | 'dyn';

interface Expr {
  exprKind: { case?: string; value?: unknown };
}

const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The apiserver's CEL escaping of a property name (`foo-bar` → `foo__dash__bar`); undefined when unreachable. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[_a-zA-Z][-._a-zA-Z0-9/]*$/.test(name)) return undefined;
  return name.replace(/__/g, '__underscores__').replace(/\./g, '__dot__').replace(/-/g, '__dash__').replace(/\//g, '__slash__');
}

/** Reverses {@link escapePropertyName}. */
export function unescapePropertyName(name: string): string {
  const kw = /^__([a-z]+)__$/.exec(name);
  if (kw && RESERVED.has(kw[1]!)) return kw[1]!;
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w]!);
}

function isClosedObject(n: Node): boolean {
  return (n.s.type === 'object' || n.props !== undefined) && !n.addl && !n.preserveUnknown && n.s.additionalProperties !== true;
}

/** Returns the first type problem of a rule evaluated at `node` (`isRoot`: a resource root), or undefined. */
export function checkRuleFields(ast: unknown, node: Node, isRoot: boolean): string | undefined {
  let problem: string | undefined;
  const scope = new Map<string, T>([
    ['self', { node, root: isRoot }],
    ['oldSelf', { node, root: isRoot }],
  ]);

  const typeOf = (e: Expr, vars: Map<string, T>): T => {
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        return vars.get((k.value as { name: string }).name) ?? 'dyn';
      case 'selectExpr': {
        const s = k.value as { operand: Expr; field: string };
        const t = typeOf(s.operand, vars);
        if (t === 'meta') {
          if (s.field !== 'name' && s.field !== 'generateName') problem ??= `undefined field '${s.field}'`;
          return 'dyn';
        }
        if (t === 'dyn') return 'dyn';
        const n = t.node;
        const embedded = t.root || n.s['x-kubernetes-embedded-resource'] === true;
        if (embedded && (s.field === 'apiVersion' || s.field === 'kind')) return 'dyn';
        if (embedded && s.field === 'metadata') return 'meta';
        if (n.addl) return { node: n.addl, root: n.addl.s['x-kubernetes-embedded-resource'] === true };
        if (!isClosedObject(n)) return 'dyn';
        const child = n.props?.get(unescapePropertyName(s.field));
        if (!child || escapePropertyName(unescapePropertyName(s.field)) !== s.field) {
          problem ??= `undefined field '${s.field}'`;
          return 'dyn';
        }
        return { node: child, root: child.s['x-kubernetes-embedded-resource'] === true };
      }
      case 'callExpr': {
        const c = k.value as { function: string; target?: Expr; args: Expr[] };
        const target = c.target ? typeOf(c.target, vars) : undefined;
        const args = c.args.map((a) => typeOf(a, vars));
        if (c.function === '_[_]' && args[0] && args[0] !== 'dyn' && args[0] !== 'meta') {
          const n = args[0].node;
          const inner = n.items ?? n.addl;
          return inner ? { node: inner, root: inner.s['x-kubernetes-embedded-resource'] === true } : 'dyn';
        }
        if (c.function === '_?_:_') return 'dyn';
        void target;
        return 'dyn';
      }
      case 'listExpr':
        for (const x of (k.value as { elements: Expr[] }).elements) typeOf(x, vars);
        return 'dyn';
      case 'structExpr':
        for (const x of (k.value as { entries: { keyKind: { value: unknown }; value: Expr }[] }).entries) {
          typeOf(x.keyKind.value as Expr, vars);
          typeOf(x.value, vars);
        }
        return 'dyn';
      case 'comprehensionExpr': {
        const c = k.value as Record<string, unknown>;
        const range = typeOf(c.iterRange as Expr, vars);
        const inner = new Map(vars);
        let elem: T = 'dyn';
        if (range !== 'dyn' && range !== 'meta' && range.node.items) elem = { node: range.node.items, root: range.node.items.s['x-kubernetes-embedded-resource'] === true };
        const iter2 = c.iterVar2 as string;
        if (iter2) {
          inner.set(c.iterVar as string, 'dyn');
          inner.set(iter2, range !== 'dyn' && range !== 'meta' && range.node.addl ? { node: range.node.addl, root: false } : elem);
        } else inner.set(c.iterVar as string, elem);
        inner.set(c.accuVar as string, 'dyn');
        typeOf(c.accuInit as Expr, vars);
        for (const key of ['loopCondition', 'loopStep', 'result']) typeOf(c[key] as Expr, inner);
        return 'dyn';
      }
    }
    return 'dyn';
  };

  typeOf(ast as Expr, scope);
  return problem;
}
