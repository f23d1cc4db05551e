// Issue 21 item 4, on the spawned binary: the embedded state folder is created
// 0700 and the approval secret 0600; a folder every user may write, or a secret
// every user may read, stops the server at start-up with one line and exit 1.
// Group bits are accepted on purpose (a volume shared with a group, as
// Kubernetes' fsGroup does, is deliberate): src/config/state-permissions.ts.

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { isolatedEnv, MAIN } from './support/env.js';

const SECRET = 'a'.repeat(24) + 'never-printed-0123456789abcdef';
const mode = (path: string) => statSync(path).mode & 0o777;
const fresh = () => mkdtempSync(join(tmpdir(), 'gsc-perm-'));

/** Exit 1, nothing on stdout, exactly one stderr line. */
function refusal(env: Record<string, string>): string {
  const result = spawnSync(process.execPath, [MAIN], { env, input: '', encoding: 'utf8', timeout: 20000 });
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^google-search-console-mcp: /);
  return lines[0];
}

/** Starts the stdio binary until its start-up line, then closes stdin; resolves with stderr. */
async function startsAndStops(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [MAIN], { env });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': stderr's last chunk can arrive after the exit event.
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const started = Date.now();
  while (!/serving stdio/.test(stderr)) {
    if (Date.now() - started > 15000 || child.exitCode !== null) {
      throw new Error(`did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  child.stdin.end();
  expect(await exited).toBe(0);
  return stderr;
}

describe('the state folder and the approval secret, created', () => {
  it('creates a missing state folder 0700 (parents too) and the approval secret 0600', async () => {
    const base = fresh();
    const dir = join(base, 'nested', 'state');
    await startsAndStops(isolatedEnv({ GSC_STATE_DIR: dir }));
    expect(mode(join(base, 'nested'))).toBe(0o700);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'approval-secret'))).toBe(0o600);
  });

  it('keeps starting with group access (a volume shared with a group on purpose)', async () => {
    const dir = fresh();
    chmodSync(dir, 0o770);
    await startsAndStops(isolatedEnv({ GSC_STATE_DIR: dir }));
    chmodSync(join(dir, 'approval-secret'), 0o640);
    await startsAndStops(isolatedEnv({ GSC_STATE_DIR: dir }));
  });
});

describe('loosened permissions stop the server at start-up', () => {
  it('a state folder every user may write (GSC_STATE_DIR)', () => {
    const dir = fresh();
    chmodSync(dir, 0o777);
    const line = refusal(isolatedEnv({ GSC_STATE_DIR: dir }));
    expect(line).toContain(`GSC_STATE_DIR "${dir}" is writable by every user of this machine (mode 0777)`);
    expect(line).toContain(`run chmod o-w "${dir}"`);
  });

  it('a world-writable folder with the sticky bit (such as /tmp itself) too', () => {
    const dir = fresh();
    chmodSync(dir, 0o1777);
    expect(refusal(isolatedEnv({ GSC_STATE_DIR: dir }))).toMatch(/is writable by every user of this machine \(mode 01777\)/);
  });

  it('the default state folder, when GSC_STATE_DIR is unset', () => {
    const xdg = fresh();
    const dir = join(xdg, 'google-search-console-mcp');
    mkdirSync(dir);
    chmodSync(dir, 0o757);
    const env = isolatedEnv({ XDG_STATE_HOME: xdg });
    delete env.GSC_STATE_DIR;
    expect(refusal(env)).toContain(
      `The state folder "${dir}" (the default; GSC_STATE_DIR is unset) is writable by every user of this machine (mode 0757)`,
    );
  });

  it.each([
    [0o644, 'readable', '0644'],
    [0o602, 'writable', '0602'],
  ])('an approval secret file with mode %o, never showing its value', (bits, what, shown) => {
    const dir = fresh();
    const file = join(dir, 'approval-secret');
    writeFileSync(file, `${SECRET}\n`);
    chmodSync(file, bits);
    const line = refusal(isolatedEnv({ GSC_STATE_DIR: dir }));
    expect(line).toContain(
      `The approval secret "${file}" is ${what} by every user of this machine (mode ${shown}), and anyone who reads or replaces it can forge approvals; run chmod 600 "${file}"`,
    );
    expect(line).not.toContain(SECRET);
  });

  it('a readable secret file is no matter when GSC_APPROVAL_SECRET is set (the file is not used)', async () => {
    const dir = fresh();
    const file = join(dir, 'approval-secret');
    writeFileSync(file, `${SECRET}\n`);
    chmodSync(file, 0o644);
    await startsAndStops(isolatedEnv({ GSC_STATE_DIR: dir, GSC_APPROVAL_SECRET: 'b'.repeat(40) }));
  });
});
