// Bundles dist/cli.js (the compiled server, decorator metadata already emitted
// by tsc) and its Nest/MCP dependencies into one ES module, dist/cli.bundle.mjs,
// which dist/main.js loads. Resolving and reading ~1 500 small module files was
// most of the start-up time: spawn → tools/list over stdio went from ~830 ms to
// ~250 ms (npm run bench). The Google client libraries stay external: they are
// loaded lazily, on the first Google call; so is ioredis, only when GSC_REDIS_URL
// names a Redis (the embedded store is node:sqlite, built in). Optional Nest packages we never use
// stay external too, so Nest's own "is it installed?" probes behave as usual.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli.js'],
  outfile: 'dist/cli.bundle.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // Nest names modules, providers and log contexts after their classes.
  keepNames: true,
  legalComments: 'linked',
  external: [
    '@googleapis/*',
    'google-auth-library',
    'googleapis-common',
    'ioredis',
    '@nestjs/microservices',
    '@nestjs/microservices/*',
    '@nestjs/websockets/*',
    'class-validator',
    'class-transformer',
  ],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
