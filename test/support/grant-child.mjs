// A separate process acting for one connected grant, for the cross-process
// refresh test in test/connected-grants.e2e.spec.ts. argv[2]: the environment
// (JSON) the configuration is loaded from; argv[3]: the principal. It opens the
// shared state store, prints "ready", waits for one line on stdin (so every
// child asks at the same moment), gets an access token for the principal's
// grant, prints one JSON line {"token": …} (or {"error": …}) and exits.
// Imports the built code, as the server does.
import 'reflect-metadata';
import { createInterface } from 'node:readline';

const dist = (path) => import(new URL(`../../dist/${path}`, import.meta.url).href);
const [{ loadConfig }, { createStateStore }, { GrantStore }, { GrantAuth }] = await Promise.all([
  dist('config/config.js'),
  dist('state/create-state-store.js'),
  dist('accounts/grant-store.js'),
  dist('accounts/grant-auth.service.js'),
]);

const config = loadConfig(JSON.parse(process.argv[2]));
const principal = process.argv[3];
const store = createStateStore(config.state);
await store.ping();
const grants = new GrantStore(store, config);
const auth = new GrantAuth(config, grants, store);
const client = await auth.authClient(principal);
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();

let result;
try {
  result = { token: (await client.getAccessToken()).token };
} catch (error) {
  result = { error: String(error?.message ?? error) };
}
process.stdout.write(`${JSON.stringify(result)}\n`);
await store.close();
process.exit(0);
