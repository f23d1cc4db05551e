// Preloaded with NODE_OPTIONS=--import into a server process under test: on
// exit, writes every module URL it resolved — ES imports and require() alike,
// through Node's synchronous module hooks — that matches LOADED_MODULES_PATTERN
// to the file LOADED_MODULES_REPORT (one per line).
import { writeFileSync } from 'node:fs';
import module from 'node:module';

const pattern = new RegExp(process.env.LOADED_MODULES_PATTERN ?? '.');
const hits = new Set();
module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (pattern.test(resolved.url)) {
      hits.add(resolved.url);
    }
    return resolved;
  },
});
process.on('exit', () => writeFileSync(process.env.LOADED_MODULES_REPORT, [...hits].join('\n')));
