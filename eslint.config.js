// ESLint (flat config), type-aware, run by `npm test`. Besides the usual
// TypeScript checks it enforces the layers: import boundaries are rules here,
// not a convention someone has to remember.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const DOMAINS = ['sites', 'sitemaps', 'analytics', 'inspection', 'indexing', 'verification'];

/** A no-restricted-imports entry for files under src/<dir>/ that must not reach into the given folders. */
const forbid = (groups, message) => ({ group: groups.flatMap((g) => [`../${g}/*`, `../../${g}/*`, `./${g}/*`]), message });
const NO_EMULATOR = forbid(['emulator'], 'The Google emulator is for tests, the demo and benchmarks; product code never imports it.');

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'examples/**/dist/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Nest modules are classes with only a decorator.
      '@typescript-eslint/no-extraneous-class': 'off',
      // A variable a closure reads before the one assignment is not a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests read loosely typed protocol answers (JSON-RPC bodies, structuredContent) on purpose.
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'src/**/*.fake.ts', 'src/emulator/emulator-test-kit.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // What is built into dist (tsconfig.build.json leaves out specs and fakes) runs without jest, e.g.
    // node dist/emulator/emulator-analytics-timing.js. no-restricted-syntax, because the layer blocks
    // below each replace no-restricted-imports for their files; no other block sets this rule.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts', 'src/**/*.fake.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: ":matches(ImportDeclaration, ImportExpression, ExportAllDeclaration, ExportNamedDeclaration)[source.value='@jest/globals']",
          message: 'Only specs and fakes may import @jest/globals: this file is built into dist and must load without jest (test helpers go in test/support/).',
        },
      ],
    },
  },
  // The layers. Flat config keeps only the last matching setting of a rule, so
  // each block repeats the rules of the wider ones it narrows.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/emulator/**', 'src/demo.ts', 'src/demo-server.ts', 'src/**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_EMULATOR] }] },
  },
  {
    files: DOMAINS.map((d) => `src/${d}/*.service.ts`),
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_EMULATOR, forbid(['mcp'], 'A domain service holds the Google logic and knows nothing of MCP; shape answers in its *.tools.ts.')] }] },
  },
  {
    // setup_site (sites) builds on verification; the other way round would be a cycle.
    files: ['src/verification/**/*.ts'],
    ignores: ['src/verification/**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_EMULATOR, forbid(['sites'], 'verification must not import the sites domain: sites imports verification (setup_site).')] }] },
  },
  {
    files: ['src/property/**/*.ts'],
    ignores: ['src/property/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NO_EMULATOR, forbid([...DOMAINS, 'mcp', 'google', 'auth', 'admin'], 'src/property is the property algebra: it imports no domain, transport or Google code.')] }],
    },
  },
  {
    files: ['src/emulator/**/*.ts'],
    // The test kit drives the emulator through the product's own Google clients, as a spec would.
    ignores: ['src/emulator/**/*.spec.ts', 'src/emulator/emulator-test-kit.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [forbid(['mcp', 'google', 'auth', 'admin', 'config', 'property', ...DOMAINS], 'The emulator stands in for Google: it must not share code with the product it tests.')] }] },
  },
);
