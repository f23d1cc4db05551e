// A separate process on a shared state store, for the cross-process tests in
// test/state-store.e2e.spec.ts. It opens the store (argv[2]: JSON options),
// prints "ready", waits for one line on stdin (so that every child starts its
// work at the same moment), runs argv[3] with argv[4..], prints one JSON line
// and exits. Imports the built code, as the server does.
import { createInterface } from 'node:readline';

const dist = new URL('../../dist/state/', import.meta.url);
const { createStateStore } = await import(new URL('create-state-store.js', dist));
const { loadOrCreateApprovalSecret } = await import(new URL('approval-secret.js', dist));

const options = JSON.parse(process.argv[2]);
const [task, ...args] = process.argv.slice(3);
const store = createStateStore(options);
if (task !== 'secret') {
  await store.ping();
}
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();

let result;
if (task === 'claim') {
  result = [];
  for (const key of args) {
    result.push(await store.claim(key, 60_000));
  }
} else if (task === 'increment') {
  const [key, times] = args;
  result = [];
  for (let i = 0; i < Number(times); i++) {
    result.push(await store.increment(key, 1, 60_000));
  }
} else if (task === 'append') {
  const [stream, times] = args;
  result = [];
  for (let i = 0; i < Number(times); i++) {
    result.push(await store.append(stream, `${process.pid}:${i}`));
  }
} else if (task === 'secret') {
  result = await loadOrCreateApprovalSecret(options.kind === 'sqlite' ? options : store);
} else {
  throw new Error(`unknown task ${task}`);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
await store.close();
