import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { ROOT, verdict } from './common.mjs';

// Sum of the files of every production dependency (npm ls --omit=dev), as `npm ci --omit=dev` would install.
function duBytes(path) {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

export async function installSize() {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const paths = [
    ...new Set(
      out
        .trim()
        .split('\n')
        .filter((p) => p.includes('node_modules')),
    ),
  ];
  // Nested node_modules are counted once, under their top-level package.
  const tops = paths.filter((p) => !paths.some((other) => other !== p && p.startsWith(`${other}/`)));
  const bytes = tops.reduce((sum, p) => (statSync(p, { throwIfNoEntry: false }) ? sum + duBytes(p) : sum), 0);
  const mb = bytes / 1024 / 1024;
  return [
    {
      bar: 'production dependencies, installed',
      target: '≤ 80 MB',
      measured: `${mb.toFixed(1)} MB (${tops.length} packages)`,
      verdict: verdict(mb <= 80),
    },
  ];
}
