// Preloaded with NODE_OPTIONS=--import into a server process under test: on
// exit, writes the CommonJS modules it loaded whose path matches
// LOADED_MODULES_PATTERN to the file LOADED_MODULES_REPORT (one per line).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;
const pattern = new RegExp(process.env.LOADED_MODULES_PATTERN ?? '.');
process.on('exit', () => {
  const hits = Object.keys(cache).filter((path) => pattern.test(path));
  writeFileSync(process.env.LOADED_MODULES_REPORT, hits.join('\n'));
});
