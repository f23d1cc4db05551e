// Preloaded with NODE_OPTIONS=--import into a server process under test: records
// every use of Intl and of the locale-sensitive built-ins (each loads ICU the
// first time, ~20 ms), and on exit writes them to INTL_PROBE_REPORT as JSON
// lines: { api, afterList, stack }, afterList telling whether stdout had already
// carried the answer to tools/list.
import { writeFileSync } from 'node:fs';

const uses = [];
let listed = false;
const record = (api) => uses.push({ api, afterList: listed, stack: new Error().stack.split('\n').slice(3, 9).join('\n') });

for (const name of [
  'DateTimeFormat',
  'Collator',
  'NumberFormat',
  'PluralRules',
  'RelativeTimeFormat',
  'ListFormat',
  'Segmenter',
  'DisplayNames',
]) {
  const original = Intl[name];
  Intl[name] = new Proxy(original, {
    construct: (target, args, newTarget) => (
      record(`Intl.${name}`),
      Reflect.construct(target, args, newTarget === Intl[name] ? target : newTarget)
    ),
    apply: (target, self, args) => (record(`Intl.${name}`), Reflect.apply(target, self, args)),
  });
}
for (const [owner, label, names] of [
  [String.prototype, 'String', ['localeCompare', 'toLocaleUpperCase', 'toLocaleLowerCase']],
  [Number.prototype, 'Number', ['toLocaleString']],
  [Date.prototype, 'Date', ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']],
]) {
  for (const name of names) {
    const original = owner[name];
    owner[name] = function (...args) {
      record(`${label}.prototype.${name}`);
      return original.apply(this, args);
    };
  }
}

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('"tools":[')) {
    listed = true;
  }
  return write(chunk, ...rest);
};
process.on('exit', () => writeFileSync(process.env.INTL_PROBE_REPORT, uses.map((u) => JSON.stringify(u)).join('\n')));
