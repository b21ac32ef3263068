import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayPath, globSegmentRegExp } from '../../../src/cli/inputs.js';
import { formatDiagnostic } from '../../../src/diagnostics/format.js';

test('glob segments', () => {
  const m = (g: string, s: string) => globSegmentRegExp(g).test(s);
  assert.ok(m('*.yaml', 'crd.yaml'));
  assert.ok(!m('*.yaml', 'crd.yml'));
  assert.ok(m('*.y{a,}ml', 'crd.yml'));
  assert.ok(m('crd-?.yaml', 'crd-1.yaml'));
  assert.ok(m('[ab]*.yaml', 'b.yaml'));
  assert.ok(!m('[!ab]*.yaml', 'b.yaml'));
  assert.ok(!m('a.b', 'axb'));
});

test('display paths are cwd-relative and POSIX', () => {
  assert.equal(displayPath('/repo', '/repo/fixtures/x.yaml'), 'fixtures/x.yaml');
  assert.equal(displayPath('/repo', '/elsewhere/x.yaml'), '/elsewhere/x.yaml');
});

test('diagnostic format: position, code, path, hint; control characters neutralised', () => {
  assert.equal(
    formatDiagnostic({
      severity: 'error',
      code: 'CRD030',
      message: 'm',
      file: 'a.yaml',
      line: 3,
      col: 5,
      path: 'spec.x',
      hint: 'h',
    }),
    'a.yaml:3:5 error CRD030 m\n  at spec.x\n  hint: h',
  );
  assert.equal(
    formatDiagnostic({ severity: 'warning', code: 'CRD002', message: 'bad\u001b[31m', file: 'b.yaml' }),
    'b.yaml warning CRD002 bad?[31m',
  );
  assert.equal(formatDiagnostic({ severity: 'error', code: 'CLI001', message: 'x' }), 'error CLI001 x');
});
