// The hostile names and texts of the security suite, and the checks every generated tree
// must pass: no injected statement (TypeScript AST), no path outside `out`.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import type { GeneratedFile } from '../../src/generate/emitter.js';

/**
 * Strings that break out of comments, template literals, string literals, handlebars,
 * object keys and paths. Each one that escaped would call `pwned` in the generated code.
 */
export const HOSTILE: readonly string[] = [
  '*/ pwned(); /*',
  '`; pwned(); `',
  '${pwned()}',
  "'; pwned(); '",
  '"; pwned(); "',
  '\\"; pwned(); //',
  'a\n pwned();\n//',
  'a\r\npwned();',
  '\u2028pwned();\u2029',
  '{{pwned}}',
  '{{{pwned}}}',
  '{{> pwned}}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '../../../pwned',
  '..',
  'a/b\\c',
  '/etc/pwned',
  '</script><script>pwned()</script>',
  '@ts-ignore */ pwned(); /**',
];

const ALLOWED_TOP_LEVEL = new Set([
  ts.SyntaxKind.ImportDeclaration,
  ts.SyntaxKind.ExportDeclaration,
  ts.SyntaxKind.ExportAssignment,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.VariableStatement,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.EnumDeclaration,
]);

/**
 * Asserts a generated TypeScript file parses without syntax errors, has only declarations at
 * the top level, and never mentions the identifier `pwned` outside strings and comments.
 */
export function assertNoInjection(path: string, text: string): void {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const syntax = (sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? [];
  assert.deepEqual(
    syntax.map((d) => `${path}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
    [],
    `${path} has syntax errors`,
  );
  for (const st of sf.statements) {
    assert.ok(
      ALLOWED_TOP_LEVEL.has(st.kind),
      `${path}: unexpected top-level ${ts.SyntaxKind[st.kind]}: ${st.getText(sf).slice(0, 200)}`,
    );
  }
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) {
      assert.notEqual(
        n.text,
        'pwned',
        `${path}: injected identifier at ${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.parent.getText(sf).slice(0, 200)}`,
      );
    }
    n.forEachChild(visit);
  };
  visit(sf);
}

/** Asserts generated paths are relative, normalised and POSIX (what the writer accepts). */
export function assertSafePaths(files: readonly GeneratedFile[]): void {
  for (const f of files) {
    assert.doesNotMatch(f.path, /^\/|\\|(^|\/)\.\.?(\/|$)|\0/, `unsafe generated path ${JSON.stringify(f.path)}`);
  }
}

/** Every file under `root`, as paths relative to it. */
export function walk(root: string): string[] {
  const out: string[] = [];
  const go = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) go(p);
      else out.push(relative(root, p).split(sep).join('/'));
    }
  };
  go(root);
  return out;
}
