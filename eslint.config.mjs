// Lint of crdgen's own code (src, test, bench, scripts): typescript-eslint's recommended,
// type-checked rules. Generated code, fixtures and examples are checked by their own tests
// (tsc --strict, prettier stability, golden files).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.cache/',
      'generated/',
      'fixtures/',
      'examples/',
      'templates/',
      'bench/node_modules/',
      'test/**/out/',
      'test/integration/fixtures-out/',
      'src/runtime/builtin/',
    ],
  },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test(), describe() and suite() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Every control character in our regular expressions is meant: readers refuse them in input,
      // emitters replace them in comments, names and paths, CEL and URL code escapes them, tests
      // match ANSI colours. The rule cannot tell these from a typo.
      'no-control-regex': 'off',
      // A `let` read by a callback made before its one assignment (a watcher the stop callback
      // removes) cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // As only-throw-error by default: passing on what was caught (or an AbortSignal's reason,
      // typed any) is not making up a rejection that is not an Error.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON off the wire and assert on it; typing every parse would add
    // casts that check nothing, so decoded JSON may be `any` there. The runtime and the generator
    // keep the rules.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // Their stand-ins for asynchronous interfaces (clients, stdin, reconcilers, storage, a
      // network body as an async generator) do their work at once: `async` keeps the interface's
      // shape, and a throw inside stays a rejection as in the real thing.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (build scripts, bench helpers that run without tsx): no type information.
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
      },
    },
  },
);
