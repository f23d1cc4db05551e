import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_MAIN measures another build (e.g. the main branch's) with these same scripts.
export const MAIN = process.env.BENCH_MAIN ?? join(ROOT, 'dist/main.js');
export const dist = (path) => import(join(ROOT, 'dist', path));

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
export const ms = (v) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
export const verdict = (ok) => (ok ? 'meets' : 'MISSES');

/** A clean environment: no ambient Google credentials, no inherited GSC_* settings. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(GSC_|GOOGLE_|ELICITATION$|CLOUDSDK_)/.test(k)) {
      env[k] = v;
    }
  }
  return {
    ...env,
    CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'bench-gcloud-')),
    METADATA_SERVER_DETECTION: 'none',
    GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'bench-state-')),
    ...extra,
  };
}

/**
 * The emulator with a registered, freshly generated service-account key.
 * `unlimited: true` lifts every quota it enforces (a benchmark measures the
 * server, not the emulator's Google-like limits, e.g. 20 requests a second per user).
 */
export async function startGoogle({ unlimited = false, ...options } = {}) {
  const { GoogleEmulator, generateServiceAccountKey } = await dist('emulator/google-emulator.js');
  const { DEFAULT_QUOTAS } = await dist('emulator/emulator-types.js');
  if (unlimited) {
    options.quotas = { ...Object.fromEntries(Object.keys(DEFAULT_QUOTAS).map((k) => [k, Infinity])), ...options.quotas };
  }
  const emulator = await GoogleEmulator.start(options);
  const clientEmail = 'bench@bench-project.iam.gserviceaccount.com';
  const { key, publicKeyPem } = generateServiceAccountKey(clientEmail);
  emulator.registerServiceAccount({ clientEmail, publicKeyPem });
  return {
    emulator,
    key,
    env: { GSC_API_ROOT_URL: emulator.url, GSC_OAUTH_TOKEN_URL: emulator.tokenUrl, GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key) },
  };
}

/** Spawn → initialize → tools/list over stdio; resolves with the milliseconds until the tools/list answer. */
export function stdioToolsListTime(command, args, env) {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    child.stdout.on('data', (d) => {
      out += d;
      if (/"id":1\b/.test(out) && !out.includes('"id":2') && !child.sentList) {
        child.sentList = true;
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      }
      if (/"id":2\b/.test(out)) {
        const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
        child.kill();
        resolvePromise(elapsed);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!/"id":2\b/.test(out)) {
        reject(new Error(`exited ${code} before answering tools/list`));
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    });
  });
}

/**
 * Spawns a server and resolves once its stderr names the /mcp URL (the first group of `ready`).
 * `nodeArgs` go before the script (e.g. --expose-gc); `stdio` must keep stderr a pipe.
 */
export async function spawnServer(args, env, ready, { nodeArgs = [], stdio = ['ignore', 'ignore', 'pipe'] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { env, stdio });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = ready.exec(log);
      if (m) {
        resolve(m[1]);
      }
    });
    child.on('exit', () => reject(new Error(`server exited: ${log}`)));
  });
  return { child, url };
}

/** Our built server over HTTP (BENCH_MAIN's, if set) and the floor's, as child processes. */
export const spawnOursHttp = (env, options = {}) =>
  spawnServer([MAIN], cleanEnv({ ...env, GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0' }), /serving HTTP on (http:\/\/[^\s/]+\/mcp)/, {
    ...options,
    nodeArgs: [...binNodeFlags(MAIN), ...(options.nodeArgs ?? [])],
  });

/** The node flags of a script's `#!/usr/bin/env -S node …` line: the server is measured as its bin runs. */
export function binNodeFlags(script) {
  const first = readFileSync(script, 'utf8').split('\n', 1)[0];
  return /^#!.*\bnode((?:\s+--\S+)*)\s*$/.exec(first)?.[1].trim().split(/\s+/).filter(Boolean) ?? [];
}
export const spawnFloorHttp = (env) => spawnServer([join(ROOT, 'bench/floor/floor-http.mjs')], cleanEnv(env), /floor serving (\S+)/);

/** A 2026-07-28 client (named `name`) connected to an /mcp URL. */
export async function connectHttp(url, name = 'bench') {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name, version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The real HTTP app in this process, logging errors only, on a free port: `{ app, origin }`. */
export async function startInProcess(env = {}) {
  const { loadConfig } = await dist('config/config.js');
  const { startHttpServer } = await dist('http-server.js');
  const { StderrLogger } = await dist('common/stderr-logger.js');
  const logger = new StderrLogger();
  logger.setLogLevels(['error']);
  return startHttpServer(loadConfig(cleanEnv({ ...env, GSC_HTTP_PORT: '0', GSC_TRANSPORT: 'http' })), logger);
}

/** The real HTTP app in this process plus a 2026-07-28 client connected to it. */
export async function serverWithClient(env = {}) {
  const { app, origin } = await startInProcess(env);
  const client = await connectHttp(`${origin}/mcp`);
  return {
    client,
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}
