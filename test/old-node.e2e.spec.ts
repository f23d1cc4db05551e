import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { REQUIRED_NODE } from '../src/common/node-version.js';

// Every entry point on a Node older than the engines range: one line naming
// the running and the required version, exit 1, before anything else loads
// (no ERR_UNKNOWN_BUILTIN_MODULE stack). Run with the machine's own old Node
// (Debian's is 20), found on PATH; the repository's pinned Node is 24.

const DIST = resolve(import.meta.dirname, '../dist');

function oldNode(): { path: string; version: string } | undefined {
  const candidates = new Set<string>(['/usr/bin/node', '/usr/local/bin/node']);
  try {
    for (const line of execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n')) {
      if (line.trim()) {
        candidates.add(line.trim());
      }
    }
  } catch {
    // no `which`: the fixed candidates remain
  }
  for (const path of candidates) {
    const run = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const version = run.stdout?.trim().replace(/^v/, '');
    if (run.status !== 0 || !version) {
      continue;
    }
    const [major, minor] = version.split('.').map(Number);
    const [needMajor, needMinor] = REQUIRED_NODE.split('.').map(Number);
    if (major < needMajor || (major === needMajor && minor < needMinor)) {
      return { path, version };
    }
  }
  return undefined;
}

const old = oldNode();
// A machine without an old Node cannot run this; say so rather than pass silently.
const describeOld = old ? describe : describe.skip;
if (!old) {
  process.stderr.write('old-node.e2e: no Node.js older than the engines range on this machine; skipped\n');
}

describeOld(`on the machine's old Node (${old?.version ?? 'none'})`, () => {
  const run = (args: string[]) =>
    spawnSync(old!.path, args, {
      encoding: 'utf8',
      cwd: mkdtempSync(join(tmpdir(), 'gsc-old-node-')),
      env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'gsc-home-')) },
      timeout: 20000,
    });

  it.each([
    ['the bin (dist/main.js)', ['main.js']],
    ['the bin with --http', ['main.js', '--http']],
    ['npm run demo (dist/demo.js)', ['demo.js']],
    ['the container healthcheck', ['healthcheck.js']],
  ])('%s prints one line naming both versions and exits 1', (_, [file, ...args]) => {
    const result = run([join(DIST, file), ...args]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`this is Node.js ${old!.version}`);
    expect(lines[0]).toContain(`Node.js ${REQUIRED_NODE.replace(/\.0$/, '')} or newer`);
  });

  it('the library import (google-search-console-mcp/nest) throws one clear Error', () => {
    const entry = join(DIST, 'search-console-mcp.module.js');
    const script = `import(${JSON.stringify(entry)}).then(() => console.log('loaded'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message, code: e.code ?? null })))`;
    const result = run(['--input-type=module', '-e', script]);
    expect(result.status).toBe(0);
    const error = JSON.parse(result.stdout.trim()) as { name: string; message: string; code: string | null };
    expect(error).toEqual({ name: 'Error', message: expect.stringContaining(`this is Node.js ${old!.version}`), code: null });
    expect(error.message).not.toMatch(/ERR_|sqlite'/);
  });
});
