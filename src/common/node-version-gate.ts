import { nodeVersionProblem } from './node-version.js';

// Imported first by the library entry (google-search-console-mcp/nest): as
// the first import it is evaluated before any other module of the graph, and
// the graph links on an older Node because node:sqlite is fetched at run time
// (src/state/sqlite-state-store.ts), so a host app gets this one Error rather
// than a stack from a module it never heard of. A throw, never process.exit:
// the process is the host's.
const problem = nodeVersionProblem();
if (problem !== undefined) {
  throw new Error(problem);
}
