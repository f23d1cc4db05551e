// Bundles dist/cli.js (the compiled server, decorator metadata already emitted
// by tsc) and its Nest/MCP dependencies into ES modules that dist/main.js loads:
// dist/cli.bundle.mjs plus chunks in dist/cli-chunks/. Resolving and reading
// ~1 500 small module files was most of the start-up time (spawn → tools/list
// over stdio went from ~830 ms to ~250 ms).
//
// Split, so that each transport reads and compiles only its own code: stdio
// never reads Express, body parsers, multer, prom-client or the HTTP side of
// the SDK, nor loads node:http2, zlib or tls for them (about 2 MB of the 4.6 MB
// a single bundle was). Whitespace and syntax are minified (names are kept:
// Nest names modules, providers and log contexts after their classes): fewer
// bytes to read, decode and scan on every start.
//
// The Google client libraries stay external: they are loaded lazily, on the
// first Google call; so is ioredis, only when GSC_REDIS_URL names a Redis (the
// embedded store is node:sqlite, built in). Optional Nest packages we never use
// stay external too, so Nest's own "is it installed?" probes behave as usual.
//
// dist/cli-chunks/chunks.json records what each output imports and holds; a spec
// checks from it that the stdio path never loads the HTTP-only packages.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/**
 * @nestjs/core's NestFactory.create() falls back to require('@nestjs/platform-express')
 * when it is not handed an adapter. A require() is synchronous, so esbuild would
 * link Express into the chunk every Nest context loads, stdio included. The HTTP
 * server hands Nest its ExpressAdapter (src/http-server.ts), which is bundled with
 * the HTTP code; the fallback is left as an unused external.
 */
const nestAdapterFallback = {
  name: 'nest-adapter-fallback',
  setup(build) {
    build.onResolve({ filter: /^@nestjs\/platform-express$/ }, (args) =>
      /node_modules[\\/]@nestjs[\\/]core[\\/]/.test(args.importer) ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * Every tool's JSON Schemas as tools/list serves them, converted from the zod
 * schemas of the dist being bundled (src/tools/tool-catalog.ts): one context is
 * booted, from a clean environment, per variant of the schemas — the default
 * mode, GSC_SITE_URL set (a placeholder), connected accounts, and both.
 */
async function toolSchemas() {
  await import('reflect-metadata');
  const { NestFactory } = await import('@nestjs/core');
  const { loadConfig } = await import('../dist/config/config.js');
  const { AppModule } = await import('../dist/app.module.js');
  const { ToolRegistry } = await import('../dist/tools/tool-registry.service.js');
  const { builtToolSchemas, DEFAULT_SITE_PLACEHOLDER } = await import('../dist/tools/tool-catalog.js');
  const scratch = mkdtempSync(join(tmpdir(), 'gsc-build-'));
  let boots = 0;
  const boot = async (env) => {
    const clean = {
      GSC_STATE_DIR: join(scratch, `state-${++boots}`),
      CLOUDSDK_CONFIG: join(scratch, 'gcloud'),
      METADATA_SERVER_DETECTION: 'none',
      ...env,
    };
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(loadConfig(clean)), { logger: false });
    try {
      return app.get(ToolRegistry).tools;
    } finally {
      await app.close();
    }
  };
  // Connected mode as a deployment turns it on; the values only have to pass the configuration's checks.
  const connected = {
    GSC_GOOGLE_OAUTH_CLIENT_ID: '000000000000-buildbuildbuildbuildbuildbuild00.apps.googleusercontent.com',
    GSC_GOOGLE_OAUTH_CLIENT_SECRET: 'build-time-placeholder',
  };
  const site = { GSC_SITE_URL: DEFAULT_SITE_PLACEHOLDER };
  try {
    return builtToolSchemas({
      plain: await boot({}),
      site: await boot(site),
      connected: await boot(connected),
      'connected+site': await boot({ ...connected, ...site }),
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const schemas = await toolSchemas();

// Chunk names carry content hashes: clear the previous build's.
rmSync('dist/cli-chunks', { recursive: true, force: true });
rmSync('dist/cli.bundle.mjs.LEGAL.txt', { force: true });

/**
 * Node built-ins reached by `import` are loaded through require() instead. An
 * ES import of a built-in makes Node build its ESM facade, which reads every
 * export, lazy getters included: `import { STATUS_CODES } from 'http'` (Nest
 * core does it) loads undici for http.WebSocket, ~30 ms of every start.
 */
const builtinsViaRequire = {
  name: 'builtins-via-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path) ? { path: args.path, namespace: 'builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * rxjs as ES modules: Nest imports a few names from 'rxjs' and 'rxjs/operators',
 * whose Node entry is the CommonJS build, 226 modules kept whole and wrapped in
 * functions that are compiled afresh on every start (the compile cache holds a
 * module's top-level code only). The ES build is tree-shaken to what is used.
 */
const rxjsAsModules = {
  name: 'rxjs-as-modules',
  setup(build) {
    const root = join(dirname(createRequire(import.meta.url).resolve('rxjs/package.json')), 'dist/esm');
    build.onResolve({ filter: /^rxjs(\/operators)?$/ }, (args) => ({
      path: join(root, args.path === 'rxjs' ? 'index.js' : 'operators/index.js'),
    }));
  },
};

/**
 * Nest's ConsoleLogger and Logger each make an Intl.DateTimeFormat when their
 * module loads, and the first Intl formatter of a process loads ICU: ~20 ms
 * of every start, for timestamps our StderrLogger prints without Intl
 * (src/common/stderr-logger.ts). Here they are made on first use instead. The
 * build fails if Nest's code no longer reads as expected, rather than quietly
 * bundling it as it is.
 */
const nestLazyDateFormat = {
  name: 'nest-lazy-date-format',
  setup(build) {
    build.onLoad({ filter: /[\\/]@nestjs[\\/]common[\\/]services[\\/](console-)?logger\.service\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const made = 'const dateTimeFormatter = new Intl.DateTimeFormat(';
      if (
        source.split(made).length !== 2 ||
        source.split('dateTimeFormatter.format(').length !== 2 ||
        source.split('dateTimeFormatter').length !== 3
      ) {
        throw new Error(
          `${args.path}: expected one module-level dateTimeFormatter, used once with .format(); update nest-lazy-date-format in scripts/bundle.mjs`,
        );
      }
      const lazy =
        'function lazyDateTimeFormat(locales, options) { let f; return { format: (date) => (f ??= new Intl.DateTimeFormat(locales, options)).format(date) }; }';
      return { contents: `${source.replace(made, 'const dateTimeFormatter = lazyDateTimeFormat(')}\n${lazy}\n`, loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: { 'cli.bundle': 'dist/cli.js' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'cli-chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // Nest names modules, providers and log contexts after their classes.
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'linked',
  metafile: true,
  define: { GSC_BUILT_TOOL_SCHEMAS: JSON.stringify(JSON.stringify(schemas)) },
  plugins: [nestAdapterFallback, builtinsViaRequire, rxjsAsModules, nestLazyDateFormat],
  external: [
    '@googleapis/*',
    'google-auth-library',
    'googleapis-common',
    'ioredis',
    // OpenTelemetry is loaded only when an OTLP endpoint is set (src/telemetry/), from node_modules.
    '@opentelemetry/*',
    '@nestjs/microservices',
    '@nestjs/microservices/*',
    '@nestjs/websockets/*',
    'class-validator',
    'class-transformer',
  ],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

// Per output: its entry (if any), the chunks it imports statically, the built-ins its code requires, and the packages inside it.
const packageOf = (input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(ours)';
const chunks = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([path]) => path.endsWith('.mjs'))
    .map(([path, output]) => {
      return [
        path,
        {
          entryPoint: output.entryPoint,
          imports: output.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path),
          builtins: [...new Set(output.imports.filter((i) => i.external && isBuiltin(i.path)).map((i) => i.path.replace(/^node:/, '')))],
          packages: [...new Set(Object.keys(output.inputs).map(packageOf))],
        },
      ];
    }),
);
writeFileSync('dist/cli-chunks/chunks.json', `${JSON.stringify(chunks, null, 1)}\n`);
