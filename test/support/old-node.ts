import { execFileSync, spawnSync } from 'node:child_process';
import { REQUIRED_NODE } from '../../src/common/node-version.js';

// The machine's own Node older than the engines range (Debian's is 20), for the
// specs of what an older Node meets. The repository's pinned Node is 24, so
// the old one is looked for on PATH and at the usual places. Not finding one
// is a failure, never a skip: a suite that silently stopped checking the
// old-Node path would pass while the path broke.

export interface OldNode {
  readonly path: string;
  readonly version: string;
}

function olderThanRequired(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  const [needMajor, needMinor] = REQUIRED_NODE.split('.').map(Number);
  return major < needMajor || (major === needMajor && minor < needMinor);
}

/** The first Node on this machine older than REQUIRED_NODE; throws, naming where it looked, when there is none. */
export function findOldNode(): OldNode {
  const candidates = new Set<string>(['/usr/bin/node', '/usr/local/bin/node', '/bin/node']);
  try {
    for (const line of execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n')) {
      if (line.trim()) {
        candidates.add(line.trim());
      }
    }
  } catch {
    // no `which`, or nothing on PATH: the fixed candidates remain
  }
  const seen: string[] = [];
  for (const path of candidates) {
    const run = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const version = run.stdout?.trim().replace(/^v/, '');
    if (run.status !== 0 || !version) {
      continue;
    }
    seen.push(`${path} (${version})`);
    if (olderThanRequired(version)) {
      return { path, version };
    }
  }
  throw new Error(
    `no Node.js older than ${REQUIRED_NODE} on this machine (found ${seen.join(', ') || 'none'}): the old-Node specs need one — ` +
      "install Debian's nodejs package (apt-get install nodejs), which .ci/run does when it is missing",
  );
}
