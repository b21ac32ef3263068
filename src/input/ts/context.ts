// The state one read shares between its parts: the checker, file names for diagnostics,
// the diagnostics collected so far, and which marker comments were consumed.
import { ts } from 'ts-morph';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourcePos } from '../../model/types.js';
import { attachedAndDetached, posOf, readComments, type FileCtx } from './comments.js';
import { tsDiag } from './diagnostics.js';
import { parseMarker, type MarkerTarget, type ParsedMarker } from './markers.js';

/** A declaration's description and parsed markers. */
export interface DeclDoc {
  description?: string;
  markers: ParsedMarker[];
}

/** Shared state of one TypeScript read. */
export class ReadCtx {
  readonly diags: Diagnostic[] = [];
  /** `file:line:col` of every marker comment that a declaration read. */
  readonly consumed = new Set<string>();
  private readonly docs = new Map<ts.Node, DeclDoc>();
  private readonly fileCtxs = new Map<ts.SourceFile, FileCtx>();

  /**
   * @param checker resolves named type references
   * @param displayName maps an absolute file name to the name diagnostics show
   */
  constructor(
    readonly checker: ts.TypeChecker,
    private readonly displayName: (fileName: string) => string,
  ) {}

  /** The FileCtx of a source file. */
  file(sf: ts.SourceFile): FileCtx {
    let fc = this.fileCtxs.get(sf);
    if (!fc) {
      fc = { sf, display: this.displayName(sf.fileName) };
      this.fileCtxs.set(sf, fc);
    }
    return fc;
  }

  /** Source position of a node's first token. */
  pos(node: ts.Node): SourcePos {
    const sf = node.getSourceFile();
    return posOf(this.file(sf), node.getStart(sf));
  }

  /** Records a diagnostic. */
  report(d: Diagnostic): void {
    this.diags.push(d);
  }

  /**
   * The attached comments of a declaration: description, and markers parsed and checked
   * against `target` (a kind's interface may carry both kind and type markers).
   */
  doc(node: ts.Node, targets: readonly MarkerTarget[]): DeclDoc {
    const cached = this.docs.get(node);
    if (cached) return cached;
    const fc = this.file(node.getSourceFile());
    const { attached } = attachedAndDetached(fc, node);
    const info = readComments(fc, attached);
    const doc: DeclDoc = { markers: [] };
    if (info.description !== undefined) doc.description = info.description;
    for (const raw of info.jsdocMarkers) {
      this.report({
        ...tsDiag(
          'TS014',
          `"+${raw.text}" is inside a JSDoc comment, where markers are not read (nor taken as the description)`,
          raw.pos,
          `markers are // comments: write "// +${raw.text}" on a line of its own above the declaration`,
        ),
        severity: 'warning',
      });
    }
    for (const raw of info.markers) {
      this.consumed.add(key(raw.pos));
      const parsed = parseMarker(raw);
      if ('severity' in parsed) {
        this.report(parsed);
        continue;
      }
      if (!parsed.def.targets.some((t) => targets.includes(t))) {
        this.report(
          tsDiag(
            'TS006',
            `marker "+${parsed.def.name}" cannot stand on ${describeTargets(targets)}`,
            raw.pos,
            `it belongs on ${describeTargets(parsed.def.targets)}`,
          ),
        );
        continue;
      }
      doc.markers.push(parsed);
    }
    this.docs.set(node, doc);
    return doc;
  }

  /** Marks a marker comment as read (file-level markers are read outside `doc`). */
  consume(pos: SourcePos): void {
    this.consumed.add(key(pos));
  }

  /** True when a marker comment at `pos` was read. */
  isConsumed(pos: SourcePos): boolean {
    return this.consumed.has(key(pos));
  }
}

function key(pos: SourcePos): string {
  return `${pos.file}:${pos.line}:${pos.col}`;
}

const TARGET_NAMES: Record<MarkerTarget, string> = {
  file: "a file's leading comment or doc.ts",
  kind: 'a kind (an interface with apiVersion, kind and metadata)',
  type: 'an interface or type alias',
  field: 'a property',
};

/** Human wording of a set of marker targets. */
export function describeTargets(targets: readonly MarkerTarget[]): string {
  if (targets.includes('kind') && targets.includes('type')) return 'an interface or type alias';
  return targets.map((t) => TARGET_NAMES[t]).join(' or ');
}
