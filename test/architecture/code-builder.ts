// The one code builder, checked on the emitters' sources (read with the TypeScript parser): every
// emitter takes its imports from ImportTracker (laid out by layout.ts's importLines) and lays out
// its name-dependent code through atColumn/renderCode, so no emitter passes a column number to a
// layout helper, keeps a print width of its own, or writes import lines; templates leave the
// import lines to `{{imports}}`.

import ts from 'typescript';

/** A rule broken at a place of an emitter's source. */
export interface CodeBuilderViolation {
  file: string;
  line: number;
  message: string;
}

/** The files allowed to lay out and write imports themselves: the layout helpers and prettier's document printer. */
export const LAYOUT_FILES: readonly string[] = ['src/generate/layout.ts', 'src/generate/doc.ts'];

/** A parameter name that holds the column a piece of code starts at. */
const COLUMN_PARAM = /^(indent|indentWidth|column|startIndent|w)$/;

/** An import declaration in the style of generated code: its module double-quoted or interpolated. */
const IMPORT_LINE = /^\s*import\s[^'`]*\sfrom\s*("|\$\{)/;

/** True when `node` is a number literal, or arithmetic over number literals only (`2 + 4`). */
function isConstantNumber(node: ts.Expression): boolean {
  if (ts.isNumericLiteral(node)) return true;
  if (ts.isParenthesizedExpression(node)) return isConstantNumber(node.expression);
  if (ts.isPrefixUnaryExpression(node)) return isConstantNumber(node.operand);
  if (ts.isBinaryExpression(node)) return isConstantNumber(node.left) && isConstantNumber(node.right);
  return false;
}

/**
 * The layout helpers of `sources` (path → text): every function, exported or not, whose first
 * parameter is a column (`indentWidth`, `indent`, …), by name.
 */
export function layoutHelpers(sources: ReadonlyMap<string, string>): Set<string> {
  const names = new Set<string>();
  for (const [path, text] of sources) {
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionDeclaration(node) && node.name && node.parameters.length > 0) {
        const first = node.parameters[0].name;
        if (ts.isIdentifier(first) && COLUMN_PARAM.test(first.text)) names.add(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return names;
}

/** Every break of the code-builder rules in `sources` (emitter sources: path → text), given the layout helpers. */
export function codeBuilderViolations(
  sources: ReadonlyMap<string, string>,
  helpers: ReadonlySet<string>,
): CodeBuilderViolation[] {
  const out: CodeBuilderViolation[] = [];
  for (const [path, text] of sources) {
    if (LAYOUT_FILES.includes(path)) continue;
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const at = (node: ts.Node, message: string): void => {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      out.push({ file: path, line: line + 1, message });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const callee = ts.isIdentifier(node.expression)
          ? node.expression.text
          : ts.isPropertyAccessExpression(node.expression)
            ? node.expression.name.text
            : '';
        const first = node.arguments[0];
        if (helpers.has(callee) && first && isConstantNumber(first))
          at(
            node,
            `${callee}(${first.getText(sf)}, …): a column number; lay the code out where the template places it: atColumn((w) => ${callee}(w, …))`,
          );
        if (callee === 'importDecl')
          at(node, 'importDecl: import lines come from an ImportTracker (importLines(imports) of layout.ts)');
        if (callee === 'declarations' && ts.isPropertyAccessExpression(node.expression))
          at(node, 'ImportTracker.declarations: write the imports with importLines(imports) of layout.ts');
      }
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /WIDTH/.test(node.name.text))
        at(node, `${node.name.text}: one print width, PRINT_WIDTH of src/generate/doc.ts, through fitsLine`);
      if (
        (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
        IMPORT_LINE.test(node.getText(sf).slice(1))
      )
        at(node, 'an import line written by hand: take the names from an ImportTracker');
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** Lines of a template (path → text) that write an import themselves instead of `{{imports}}`. */
export function templateImportLines(templates: ReadonlyMap<string, string>): CodeBuilderViolation[] {
  const out: CodeBuilderViolation[] = [];
  for (const [path, text] of templates)
    text.split('\n').forEach((l, i) => {
      if (/^\s*import\s/.test(l))
        out.push({
          file: path,
          line: i + 1,
          message: 'an import line in a template: write {{imports}} (ImportTracker)',
        });
    });
  return out;
}
