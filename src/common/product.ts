import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name this server goes by everywhere: MCP serverInfo, logs, the texts that say who did not ask. */
export const SERVER_NAME = 'google-search-console-mcp';

/** The one start-up line ELICITATION=false prints (asking-a-person.txt). */
export const ELICITATION_OFF_LINE = `${SERVER_NAME}: ELICITATION=false — guarded tools fall back to the two-call token`;

let found: { root: string; version: string } | undefined;

/**
 * This package's folder and version, from its package.json: never a second
 * literal. Found by walking up from this module, which works both from
 * dist/common/ and from the bundle in dist/.
 */
function packageInfo(): { root: string; version: string } {
  if (found) {
    return found;
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === SERVER_NAME && pkg.version) {
        return (found = { root: dir, version: pkg.version });
      }
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) {
      return (found = { root: dirname(fileURLToPath(import.meta.url)), version: '0.0.0' });
    }
    dir = parent;
  }
}

export function serverVersion(): string {
  return packageInfo().version;
}

/** The installed package's folder (the one holding package.json and dist/). */
export function packageRoot(): string {
  return packageInfo().root;
}
