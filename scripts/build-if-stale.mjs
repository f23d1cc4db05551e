// Builds only when dist/ is older than what it is built from, so `npm run demo`
// and `npm run docs` right after `npm ci` (whose prepare step built) start at
// once instead of spending a minute rebuilding the same output.
// `--dry-run` only says which it would do (a spec uses it); with `--as-if-older`
// it judges as if one output dated from 2020, so the spec never touches dist/
// while other suites run from it.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What the build reads: the sources and the build's own configuration and scripts. */
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'scripts/bundle.mjs',
  'scripts/build-views.mjs',
  'scripts/openapi.mjs',
];
/** What the build writes, the last steps' outputs among them. */
const OUTPUTS = ['dist/main.js', 'dist/demo.js', 'dist/cli.bundle.mjs', 'dist/admin-openapi.json', 'dist/search-console-mcp.module.js'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) {
    return stat.mtimeMs;
  }
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function oldestOutput() {
  try {
    const asIfOlder = process.argv.includes('--dry-run') && process.argv.includes('--as-if-older') ? [Date.UTC(2020, 0, 1)] : [];
    return Math.min(...OUTPUTS.map((path) => statSync(join(ROOT, path)).mtimeMs), ...asIfOlder);
  } catch {
    return -Infinity; // something is missing
  }
}

const input = Math.max(...INPUTS.map((path) => newest(join(ROOT, path))));
const output = oldestOutput();
const stale = output < input;
const why = output === -Infinity ? 'dist/ is incomplete' : stale ? 'sources changed since dist/ was built' : 'dist/ is current';
if (process.argv.includes('--dry-run')) {
  process.stdout.write(`${stale ? 'would build' : 'would not build'}: ${why}\n`);
} else if (stale) {
  process.stderr.write(`building (${why})…\n`);
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(result.status ?? 1);
}
