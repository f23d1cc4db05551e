// `npm test`: the static checks (types, lint, formatting, folder cycles) and jest, at the same
// time. Jest's process-level suites spend much of their wall time waiting on the servers they
// start; the checks fill those gaps instead of running one after another before jest (issue 33:
// the whole `npm test` within 6 minutes on 2 cores). The checks' output is held and printed after
// jest's, so the two never interleave; the exit code is non-zero when either failed.
// Arguments go to jest (`npm test -- test/stdio.e2e.spec.ts`).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;

// The same commands as `npm run typecheck`, `lint` and `format:check`, so the two never drift apart.
const CHECKS = [
  ['types', 'npm', ['run', '--silent', 'typecheck']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['format', 'npm', ['run', '--silent', 'format:check']],
  ['folder cycles', NODE, ['scripts/check-folder-cycles.mjs', 'src']],
];

/** Runs one check with its output held; resolves with what it printed and whether it passed. */
function check([name, command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not allowed here: the checks simply share the CPU evenly.
    }
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => resolve({ name, ok: false, output: String(error) }));
    // 'close', not 'exit': the last chunk of output can arrive after the exit event.
    child.on('close', (code) => resolve({ name, ok: code === 0, output }));
  });
}

// The checks run niced, so jest's servers (whose answers tests wait on) go first.
const checks = Promise.all(CHECKS.map(check));
const jest = new Promise((resolve) => {
  const child = spawn(
    NODE,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', '--ci', ...process.argv.slice(2)],
    { cwd: ROOT, stdio: 'inherit' },
  );
  child.on('close', (code) => resolve(code === 0));
});

const [results, jestPassed] = await Promise.all([checks, jest]);
const failed = results.filter((r) => !r.ok);
for (const result of failed) {
  process.stderr.write(`\n✗ ${result.name} failed:\n${result.output.trimEnd()}\n`);
}
process.stderr.write(`\nChecks: ${results.map((r) => `${r.name} ${r.ok ? '✓' : '✗'}`).join(', ')}\n`);
process.exitCode = failed.length === 0 && jestPassed ? 0 : 1;
