// The diagnostic catalogue: every code crdgen reports, with a one-line title.
// Codes are stable; tests and users grep for them. This is the only table of codes:
// `Diagnostic.code` is typed as its keys, so a code not listed here does not compile.

/** Code → short title. `IO`: reading inputs, `OUT`: the output folder, `YAML`: parsing, `CRD`: apiserver-equivalent
 * CRD validation, `GEN`: rules the generator adds on top, `CLI`: command line, `PRJ`: the project
 * the output goes into (warnings, src/cli/project.ts), `TS`: TypeScript input
 * (src/input/ts/diagnostics.ts), `OAPI`: Kubernetes OpenAPI v3 documents (src/input/openapi/). */
export const DIAGNOSTIC_CODES = {
  IO001: 'cannot read input',
  IO002: 'input is not UTF-8 text',
  IO003: 'input is empty',
  OUT001: 'output folder cannot be written',
  YAML001: 'YAML syntax error',
  YAML002: 'YAML alias expansion limit exceeded',
  CRD001: 'no CustomResourceDefinition in input',
  CRD002: 'document is not a CustomResourceDefinition (skipped)',
  CRD003: 'unsupported CustomResourceDefinition apiVersion',
  CRD010: 'required field missing',
  CRD011: 'field has the wrong type',
  CRD012: 'unknown field (kube-apiserver refuses it under strict field validation)',
  CRD013: 'unknown field dropped by kube-apiserver (under items or additionalProperties)',
  CRD020: 'invalid name',
  CRD021: 'metadata.name does not match spec.names.plural + "." + spec.group',
  CRD022: 'invalid group',
  CRD023: 'unsupported value',
  CRD024: 'invalid versions',
  CRD025: 'invalid subresources or printer columns',
  CRD026: 'missing API approval annotation',
  CRD027: 'invalid CRD metadata (labels, annotations, finalizers, owner references)',
  CRD028: 'invalid conversion',
  CRD029: 'invalid selectable field',
  CRD030: 'unsupported schema type',
  CRD031: 'schema type missing',
  CRD032: 'forbidden schema keyword',
  CRD033: 'additionalProperties and properties are mutually exclusive',
  CRD034: 'invalid x-kubernetes extension use',
  CRD035: 'schema not structural',
  CRD036: 'invalid x-kubernetes-validations rule',
  CRD037: 'pattern is not a valid regular expression',
  CRD038: 'x-kubernetes-validations rule does not compile',
  CRD039: 'schema the validation engine cannot reduce',
  CRD040: 'default does not validate against its own schema',
  GEN001: 'kind is not an UpperCamelCase identifier',
  GEN002: 'name cannot be used as an output path segment',
  GEN003: 'kind defined twice',
  GEN004: 'CRD serves no version (nothing generated)',
  GEN005: 'operator hooks are still the generated stubs',
  GEN006: 'kind or listKind is not a safe TypeScript identifier: generated code uses another name',
  GEN007: 'generated operator removed (its kind gets none any more)',
  GEN008: 'a file of yours is left without the generated code it uses',
  OAPI001: 'OpenAPI document syntax error',
  OAPI002: 'not an OpenAPI v3 document',
  OAPI003: 'no Kubernetes kind in OpenAPI document',
  OAPI004: '$ref does not resolve',
  OAPI005: 'unsupported $ref',
  OAPI006: 'invalid x-kubernetes-group-version-kind',
  OAPI007: 'invalid schema',
  OAPI008: 'no path serves the kind (plural, scope and verbs guessed)',
  OAPI009: 'two types of one name in a group/version',
  OAPI010: 'unknown kind selected',
  CLI001: 'no input files',
  CLI002: 'unsupported input type',
  CLI003: 'CRD and OpenAPI inputs mixed',
  CLI004: 'out of memory (the heap limit is too small for the run)',
  PRJ001: 'package.json is not an ES module package ("type": "module")',
  PRJ002: 'tsconfig "module" cannot compile the generated code',
  PRJ003: 'tsconfig "moduleResolution" cannot resolve \'crdgen/runtime\'',
  PRJ004: "Node's types are not available to the generated code",
  // TypeScript input (src/input/ts).
  /** A file could not be read, or has syntax errors. */
  TS001: 'input file problem',
  /** A declaration the format does not support (class, function, enum, variable, namespace). */
  TS002: 'unsupported declaration',
  /** A type the format cannot express as a schema (generic, union of objects, tuple, any, …). */
  TS003: 'unsupported type',
  /** A type refers to itself; a CRD schema cannot express recursion. */
  TS004: 'circular type',
  /** A marker name that is not in the catalogue. */
  TS005: 'unknown marker',
  /** A known marker on a node it cannot apply to. */
  TS006: 'marker on the wrong kind of node',
  /** A marker whose value does not parse. */
  TS007: 'marker value does not parse',
  /** A type reference that does not resolve to an interface or type alias. */
  TS008: 'unresolved type',
  /** Group or version missing or inconsistent. */
  TS009: 'group/version problem',
  /** A kind interface that is malformed (kind/apiVersion literals, missing spec shape). */
  TS010: 'malformed kind',
  /** Markers that contradict each other. */
  TS011: 'conflicting markers',
  /** The same kind twice in one version, or a multi-version kind without one storage version. */
  TS012: 'kind defined inconsistently',
  /** No inputs, or inputs that hold no kinds. */
  TS013: 'nothing to read',
  /** A `+marker` line inside a JSDoc comment: markers are `//` comments; it is not read. */
  TS014: 'marker in a JSDoc comment (not read)',
  // Config files (src/config).
  CFG001: 'cannot read config file',
  CFG002: 'config file syntax error',
  CFG003: 'invalid config',
} as const;

/** A code from {@link DIAGNOSTIC_CODES}. */
export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
