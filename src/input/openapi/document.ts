// One OpenAPI document as plain data with source positions: JSON (what kube-apiserver serves
// at /openapi/v3/…) through JSON.parse, its positions from jsonc-parser's tree built only when
// a position is first read; YAML through the CRD reader's loader (positions included).

import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { segValue, type Path } from '../crd/field-path.js';
import { loadYaml, type LineCol } from '../crd/yaml-source.js';

/** A parsed document: its value, and the position of the node at a path. */
export interface ApiDocument {
  value: unknown;
  /**
   * Position of the node at `path`: an object member's key, an array element's value; for a
   * path that does not exist, the deepest existing ancestor.
   */
  locate(path: Path): LineCol;
}

/** 1-based line and column of each offset of `text`, from a table of line starts. */
function lineIndex(text: string): (offset: number) => LineCol {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo] + 1 };
  };
}

/** True when the text is JSON rather than YAML (what a JSON document starts with). */
export function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

/** Parses `text` (JSON or YAML) as one document; syntax errors become OAPI001 diagnostics with their position. */
export function loadDocument(text: string, file: string): { doc?: ApiDocument; diagnostics: Diagnostic[] } {
  if (!looksLikeJson(text)) {
    const { docs, diagnostics } = loadYaml(text, file);
    if (diagnostics.length > 0) return { diagnostics };
    if (docs.length !== 1) {
      return {
        diagnostics: [
          {
            severity: 'error',
            code: 'OAPI002',
            file,
            line: 1,
            col: 1,
            message: `expected one OpenAPI document, found ${docs.length} YAML documents`,
          },
        ],
      };
    }
    const d = docs[0];
    return { doc: { value: d.value, locate: (p) => d.locate(p) }, diagnostics: [] };
  }
  const at = lineIndex(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
    const first = errors[0];
    const where = first ? at(first.offset) : { line: 1, col: 1 };
    const what = first
      ? printParseErrorCode(first.error)
          .replace(/([a-z])([A-Z])/g, '$1 $2')
          .toLowerCase()
      : 'invalid JSON';
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'OAPI001',
          file,
          ...where,
          message: `cannot parse JSON: ${what}`,
          hint: 'the document must be the JSON kube-apiserver serves at /openapi/v3/<group-version> (or the same as YAML)',
        },
      ],
    };
  }
  let tree: Node | undefined;
  const locate = (path: Path): LineCol => {
    tree ??= parseTree(text);
    if (!tree) return { line: 1, col: 1 };
    for (let n = path.length; n >= 0; n--) {
      const node = findNodeAtLocation(tree, path.slice(0, n).map(segValue));
      if (!node) continue;
      // an object member: its key; else the value itself
      const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
      return at((key ?? node).offset);
    }
    return { line: 1, col: 1 };
  };
  return { doc: { value, locate }, diagnostics: [] };
}
