// Preloaded with NODE_OPTIONS=--require into a server process under test: on
// exit, writes the CommonJS modules it loaded whose path matches
// LOADED_MODULES_PATTERN to the file LOADED_MODULES_REPORT (one per line).
const { writeFileSync } = require('node:fs');

const pattern = new RegExp(process.env.LOADED_MODULES_PATTERN ?? '.');
process.on('exit', () => {
  const hits = Object.keys(require.cache).filter((path) => pattern.test(path));
  writeFileSync(process.env.LOADED_MODULES_REPORT, hits.join('\n'));
});
