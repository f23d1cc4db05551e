// ESLint (flat config), type-aware, run by `npm test`. Besides the usual
// TypeScript checks it enforces the layers: import boundaries are rules here,
// not a convention someone has to remember.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const DOMAINS = ['sites', 'sitemaps', 'analytics', 'inspection', 'indexing', 'verification', 'annotations'];

/**
 * The layers of src/ (README, "## Development"): what each folder may import from
 * the other folders, and nothing else. The arrows only point down, so no two
 * folders import each other; scripts/check-folder-cycles.mjs checks the same of
 * the imports themselves in `npm test`. Every folder of src/ must have its row
 * (this file throws otherwise), so a new folder gets its rule in the commit that
 * adds it. Specs and fakes follow their folder's row.
 */
const LAYERS = {
  common: [],
  property: ['common'],
  config: ['common', 'property'],
  state: ['common', 'config'],
  identity: ['common', 'config'],
  google: ['common', 'config', 'property'],
  policy: ['common', 'config', 'property', 'identity'],
  http: ['common', 'config', 'identity'],
  // Connected accounts: grants at rest, the client acting as a principal, the connect pages. Implements google's ConnectedAccounts.
  accounts: ['common', 'config', 'property', 'identity', 'state', 'google', 'policy', 'http'],
  // The tool framework: @Tool/@Resource declarations, argument and output shapes, the registry and catalog, wire schemas.
  tools: ['common', 'config', 'property', 'identity', 'policy', 'google'],
  // One tool call, in order (call/pipeline.ts): target, admission, account, site access, approval, then the method.
  call: ['common', 'config', 'property', 'identity', 'policy', 'state', 'google', 'http', 'accounts', 'tools'],
  // Transport only: the HTTP controller, 2025 sessions, their event stores, the McpServer factory.
  mcp: ['common', 'config', 'property', 'identity', 'policy', 'state', 'google', 'http', 'accounts', 'tools', 'call'],
  // Team notes on a property's days, over the state store (nothing goes to Google); analytics lists them in its answers.
  annotations: ['common', 'config', 'property', 'identity', 'state', 'tools', 'call', 'mcp'],
  // analytics sits below quota (quota-windows reads its Pacific calendar), so no quota there.
  analytics: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'annotations'],
  quota: ['common', 'config', 'property', 'state', 'google', 'tools', 'analytics/pacific-period.js'],
  inspection: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'quota'],
  indexing: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'quota'],
  sitemaps: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'quota'],
  verification: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'call', 'quota'],
  // setup_site builds on verification.
  sites: ['common', 'config', 'property', 'identity', 'state', 'google', 'tools', 'quota', 'verification'],
  // The person's own connected Google accounts as tools (list_google_accounts, disconnect_google_account).
  connections: ['common', 'config', 'property', 'identity', 'state', 'google', 'accounts', 'tools', 'call', 'mcp'],
  admin: [
    'common',
    'config',
    'property',
    'identity',
    'state',
    'google',
    'policy',
    'http',
    'tools',
    'call',
    'quota',
    'accounts',
    'annotations',
  ],
  // The ui:// resources of MCP Apps; their browser code (views/app/) has its own block below.
  views: ['common', 'tools'],
  // The conformance suite's fixtures (GSC_CONFORMANCE_FIXTURES): tools, resources and prompts declared like ours.
  conformance: ['common', 'tools', 'mcp'],
  // OpenTelemetry's SDK and OTLP exporters behind common/telemetry.ts's hooks; imported by the CLI only when an endpoint is set.
  telemetry: ['common', 'config'],
  // The emulator stands in for Google and shares no code with the product it tests.
  emulator: [],
};
const WHY = {
  emulator: 'The emulator stands in for Google: it must not share code with the product it tests.',
  domainService: 'A domain service holds the Google logic and knows nothing of MCP; shape answers in its *.tools.ts.',
};

/** ext-apps is a devDependency: its types check our MCP Apps declarations; its code (the App class bundles the MCP SDK and zod, ~400 KB) is never loaded. */
const EXT_APPS_TYPES_ONLY = {
  name: '@modelcontextprotocol/ext-apps',
  allowTypeImports: true,
  message:
    'Types only: ext-apps is a devDependency, and its App class would bundle the MCP SDK and zod into a view (see src/views/app/view-bridge.ts).',
};

/** The output schemas the views type their data with (import type only), as src/views/app/ imports them. */
const VIEW_SCHEMAS = [
  '../../analytics/analytics.schemas.js',
  '../../inspection/inspection.schemas.js',
  '../../quota/quota-report.js',
  '../../sitemaps/sitemap-format.js',
];

const SRC = new URL('./src/', import.meta.url);
// A folder with no .ts file in it (left behind by a move) is no layer.
const SRC_FOLDERS = readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory() && readdirSync(new URL(`${e.name}/`, SRC), { recursive: true }).some((f) => String(f).endsWith('.ts')))
  .map((e) => e.name);
const ROOT_FILES = readdirSync(SRC)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.replace(/\.ts$/, '.js'));
const unmapped = SRC_FOLDERS.filter((folder) => !(folder in LAYERS));
if (unmapped.length > 0) {
  throw new Error(`eslint.config.js: src/${unmapped.join(', src/')} has no row in LAYERS; say what it may import`);
}

/**
 * The no-restricted-imports patterns for a file `depth` folders below src/ that may
 * import only `allowed` (folder names, or one file as `folder/file.js`). Paths are
 * written relative to the importing file, so one pattern per depth.
 */
function onlyFrom(folder, allowed, depth, message) {
  const up = depth === 0 ? './' : '../'.repeat(depth);
  const group = [];
  for (const other of SRC_FOLDERS) {
    if (other === folder || allowed.includes(other)) {
      continue;
    }
    group.push(`${up}${other}/*`);
    for (const file of allowed.filter((a) => a.startsWith(`${other}/`))) {
      group.push(`!${up}${file}`);
    }
  }
  // The files at the root of src/ are the composition root: nothing below imports them.
  if (depth > 0) {
    group.push(...ROOT_FILES.map((file) => `${up}${file}`));
  }
  return group.length > 0 ? [{ group, message }] : [];
}

/**
 * One block per folder (files at any depth below it), then the narrower blocks. Flat
 * config keeps only the last matching setting of a rule, so those come last and repeat
 * their folder's patterns; the @jest/globals check above is no-restricted-syntax for that reason.
 */
function layerBlocks() {
  const rule = (folder, allowed, message, depths = [1, 2, 3]) => ({
    'no-restricted-imports': [
      'error',
      { paths: [EXT_APPS_TYPES_ONLY], patterns: depths.flatMap((d) => onlyFrom(folder, allowed, d, message)) },
    ],
  });
  const said = (folder, allowed) =>
    WHY[folder] ??
    `src/${folder}/ may import only ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'packages'} (the layers: README, "## Development"; eslint.config.js LAYERS).`;
  const byFolder = Object.entries(LAYERS).map(([folder, allowed]) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: rule(folder, allowed, said(folder, allowed)),
  }));
  return [
    {
      // The composition root (main, the module, the transports) wires every layer; only the demo runs the emulator.
      files: ['src/*.ts'],
      ignores: ['src/demo.ts', 'src/demo-server.ts'],
      rules: rule(
        '',
        SRC_FOLDERS.filter((f) => f !== 'emulator'),
        WHY.emulator,
        [0],
      ),
    },
    ...byFolder,
    ...DOMAINS.map((domain) => ({
      files: [`src/${domain}/*.service.ts`],
      rules: rule(
        domain,
        LAYERS[domain].filter((f) => !['tools', 'call', 'mcp'].includes(f)),
        WHY.domainService,
      ),
    })),
    {
      // Browser code of the views, bundled into their HTML by scripts/build-views.mjs and typed by its own
      // tsconfig (DOM library). It runs in the host's sandboxed iframe and reaches the server only through the host.
      files: ['src/views/app/**/*.ts'],
      languageOptions: { globals: globals.browser },
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [EXT_APPS_TYPES_ONLY],
            patterns: [
              {
                group: ['node:*', '@nestjs/*', '@modelcontextprotocol/server', '@modelcontextprotocol/client'],
                message: 'View code imports only its own folder (and ext-apps types): it runs in the browser.',
              },
              {
                // Anything outside the folder but the schema files below.
                regex: `^\\.\\./(?!${VIEW_SCHEMAS.map((file) => file.slice(3).replace(/[.]/g, '\\.')).join('$|')}$)`,
                message: 'View code imports only its own folder (and ext-apps types): it runs in the browser.',
              },
              {
                group: VIEW_SCHEMAS,
                allowTypeImports: true,
                message: "Types only (z.output of a tool's schema): the schemas' code would bundle zod and the server into a view.",
              },
            ],
          },
        ],
      },
    },
    {
      // The test host page of the view tests runs in the browser too.
      files: ['test/support/views-host/*.ts'],
      languageOptions: { globals: globals.browser },
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'examples/**/dist/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // The four programs named (not projectService, which finds them itself): ~20 % less CPU for the same
      // checks on this repository (61–66 s against 74–81 s on 2 cores), the largest single cost of npm test's checks.
      // A TypeScript file in none of them is an error here: give it a tsconfig.
      parserOptions: {
        project: [
          './tsconfig.json',
          './src/views/app/tsconfig.json',
          './test/support/views-host/tsconfig.json',
          './examples/company-backend/tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Nest modules are classes with only a decorator.
      '@typescript-eslint/no-extraneous-class': 'off',
      // A variable a closure reads before the one assignment is not a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // An async function with no await is a promise wrapper nobody asked for (or a forgotten await).
      '@typescript-eslint/require-await': 'error',
      // The no-unsafe-* family stays on (recommendedTypeChecked) for product code: an `any` that flows on unchecked is a bug.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests read loosely typed protocol answers (JSON-RPC bodies, structuredContent) on purpose. The example
    // host app is linted without its own dependencies installed (its test builds it from the packed tarball).
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'src/**/*.fake.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // A stand-in for a promise-returning callback (a client's dialog answer, a mocked pause) is an async arrow on purpose.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // What is built into dist (tsconfig.build.json leaves out specs and fakes) runs without jest, e.g.
    // node dist/emulator/emulator-main.js. Test kits live in test/support/ (or are *.fake.ts), never in
    // dist. no-restricted-syntax, because the layer blocks
    // below each replace no-restricted-imports for their files; no other block sets this rule.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts', 'src/**/*.fake.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ":matches(ImportDeclaration, ImportExpression, ExportAllDeclaration, ExportNamedDeclaration)[source.value='@jest/globals']",
          message:
            'Only specs and fakes may import @jest/globals: this file is built into dist and must load without jest (test helpers go in test/support/).',
        },
      ],
    },
  },
  // The layers: one no-restricted-imports block per folder of src/, built from LAYERS below.
  ...layerBlocks(),
);
