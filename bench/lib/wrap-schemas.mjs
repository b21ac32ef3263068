// Turns CRD files into what schema-only generators read (a step crdgen does not need):
//   node bench/lib/wrap-schemas.mjs openapi <out.json> <crd.yaml...>   one OpenAPI 3 document, a schema per kind and version
//   node bench/lib/wrap-schemas.mjs jsonschema <out-dir> <crd.yaml...> one JSON Schema file per kind and version
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const [mode, out, ...files] = process.argv.slice(2);
if ((mode !== 'openapi' && mode !== 'jsonschema') || !out || files.length === 0) {
  console.error('usage: wrap-schemas.mjs openapi|jsonschema <out> <crd.yaml...>');
  process.exit(2);
}

/** Every (name, schema) of the CRDs in `file`: v1 per-version schemas and v1beta1's top-level one. */
function* schemas(file) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const crd = doc.toJS({ maxAliasCount: -1 });
    if (crd?.kind !== 'CustomResourceDefinition') continue;
    const kind = crd.spec.names.kind;
    const group = crd.spec.group
      .split(/[^A-Za-z0-9]+/)
      .map((p) => p[0].toUpperCase() + p.slice(1))
      .join('');
    for (const v of crd.spec.versions ?? [{ name: crd.spec.version }]) {
      const schema = v.schema?.openAPIV3Schema ?? crd.spec.validation?.openAPIV3Schema;
      if (schema) yield [`${group}${v.name[0].toUpperCase()}${v.name.slice(1)}${kind}`, schema];
    }
  }
}

if (mode === 'openapi') {
  const all = {};
  for (const f of files) for (const [name, schema] of schemas(f)) all[name] = schema;
  writeFileSync(
    out,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'CRDs', version: '1' },
      paths: {},
      components: { schemas: all },
    }),
  );
} else {
  mkdirSync(out, { recursive: true });
  for (const f of files)
    for (const [name, schema] of schemas(f))
      writeFileSync(join(out, `${name}.json`), JSON.stringify({ title: name, ...schema }));
}
