// The one minimum Node.js version (package.json "engines" says the same; a
// spec keeps them equal). 22.13 is where node:sqlite, the embedded state
// store, loads without --experimental-sqlite.
//
// Dependency-free on purpose: every entry point evaluates this before anything
// else loads, so on an older Node the person sees one line naming both
// versions instead of ERR_UNKNOWN_BUILTIN_MODULE from deep inside a bundle.

export const REQUIRED_NODE = '22.13.0';

/** The sentence for an older Node, or undefined when this one is new enough. */
export function nodeVersionProblem(running: string = process.versions.node): string | undefined {
  const have = running.split('.').map(Number);
  const need = REQUIRED_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) > need[i]) {
      return undefined;
    }
    if ((have[i] ?? 0) < need[i]) {
      return `google-search-console-mcp needs Node.js ${REQUIRED_NODE.replace(/\.0$/, '')} or newer (for the built-in node:sqlite); this is Node.js ${running} — install a current Node.js (https://nodejs.org) and run it again`;
    }
  }
  return undefined;
}

/** For a command: one line on stderr and exit 1 on an older Node. */
export function exitOnOldNode(): void {
  const problem = nodeVersionProblem();
  if (problem === undefined) {
    return;
  }
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
