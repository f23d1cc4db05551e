import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';

/**
 * Writes `line` into a new 0600 file in a 0700 folder, only when no such file
 * exists yet: true when this process created it, false when another one
 * already had (EEXIST); any other failure is thrown. Several processes starting
 * at once on one state folder thus agree on the first secret written.
 */
export function createSecretFileOnce(dir: string, file: string, line: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw error;
  }
  try {
    writeSync(fd, `${line}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}
