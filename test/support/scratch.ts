import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where RAM-backed scratch lives on Linux. */
const RAM = '/dev/shm';
/** Room a suite may take there (the Dockerfile replay's two stages take about 600 MB), with a margin for the rest of the machine. */
const ROOM = 4 * 1024 ** 3;

let ramUsable: boolean | undefined;

/**
 * A new scratch folder for a suite that installs packages: tens of thousands of
 * small files written and deleted again. In RAM (/dev/shm) when it is there,
 * has room and lets programs run from it (npm runs node_modules/.bin scripts;
 * a container's /dev/shm is often small or noexec), else in os.tmpdir().
 * Measured on the 2-core test machine: `npm ci` of the dev dependencies spends
 * 26–30 s of system time writing them to ext4, 7–8 s to tmpfs. What the suites
 * prove does not depend on where the folder is.
 */
export function scratchDir(prefix: string): string {
  ramUsable ??= canUseRam();
  return mkdtempSync(join(ramUsable ? RAM : tmpdir(), prefix));
}

function canUseRam(): boolean {
  let probe: string | undefined;
  try {
    const { bavail, bsize } = statfsSync(RAM);
    if (bavail * bsize < ROOM) {
      return false;
    }
    probe = mkdtempSync(join(RAM, 'gsc-probe-'));
    const script = join(probe, 'run.sh');
    writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    execFileSync(script, { stdio: 'ignore' });
    return true;
  } catch {
    return false; // absent, read-only or noexec
  } finally {
    if (probe) {
      rmSync(probe, { recursive: true, force: true });
    }
  }
}
