import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp } from './support/clients.js';
import { buildContext, dockerignore, inside, parseDockerfile, replay, type Stage } from './support/dockerfile.js';
import { CLEAN_PATH, NPM_CACHE, npmEnv } from './support/npm.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { scratchDir } from './support/scratch.js';

// No Docker engine runs here, so this replays the Dockerfile: each stage's
// COPY/RUN in its own scratch root, with the build context a clean clone plus
// this working tree's changes would send, then starts the runtime stage with
// the image's ENV and ENTRYPOINT and runs its HEALTHCHECK command.

const REPO = resolve(import.meta.dirname, '..');
// The base image's node is the Node 24 this suite runs on (see the FROM check below).
const PATH = CLEAN_PATH;
// USER node in the official node images is uid/gid 1000; as root we can really drop to it.
const AS_NODE_USER = process.getuid?.() === 0 ? { uid: 1000, gid: 1000 } : {};

let scratch: string;
let stages: Stage[];
let runtime: Stage;
let runtimeRoot: string;

/** `docker run -e …`: the image's ENV plus overrides, started with its ENTRYPOINT as its USER. */
function containerEnv(overrides: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = { PATH, HOME: join(runtimeRoot, 'home/node'), ...runtime.env };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) {
      delete env[name];
    } else {
      env[name] = value;
    }
  }
  return env;
}

interface Container {
  readonly process: ChildProcess;
  readonly env: Record<string, string>;
  stderr(): string;
  stop(): Promise<void>;
}

async function run(overrides: Record<string, string | undefined>): Promise<Container> {
  const env = containerEnv(overrides);
  const [command, ...args] = runtime.entrypoint!;
  const child = spawn(command, args, { cwd: inside(runtimeRoot, runtime.workdir), env, ...AS_NODE_USER });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the runtime stage did not start:\n${stderr}`));
    }, 30_000);
    child.stderr.on('data', () => {
      if (/serving HTTP on /.test(stderr)) {
        clearTimeout(timer);
        ready();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the runtime stage exited with ${code}:\n${stderr}`));
    });
  });
  return {
    process: child,
    env,
    stderr: () => stderr,
    stop: () =>
      new Promise((stopped) => {
        if (child.exitCode !== null) {
          return stopped();
        }
        child.on('exit', () => stopped());
        child.kill('SIGTERM');
      }),
  };
}

/** What Docker does every interval: run the HEALTHCHECK command in the container, bounded by its --timeout. */
function healthcheck(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const [command, ...args] = runtime.healthcheck!.command;
  const child = spawn(command, args, {
    cwd: inside(runtimeRoot, runtime.workdir),
    env,
    timeout: runtime.healthcheck!.timeoutMs,
    ...AS_NODE_USER,
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((done) => child.on('close', (code) => done({ code, output: output.trim() })));
}

async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return String(port);
}

// Loopback instead of the image's 0.0.0.0, as `docker run -e GSC_HTTP_HOST=…` would: test servers never listen on the network.
async function local(extra: Record<string, string> = {}) {
  return { GSC_HTTP_HOST: '127.0.0.1', GSC_HTTP_PORT: await freePort(), GSC_HTTP_TOKEN: 'replay-http-token-0123456789', ...extra };
}

describe('the Dockerfile, replayed without a Docker engine', () => {
  beforeAll(async () => {
    stages = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
    runtime = stages.at(-1)!;
    scratch = scratchDir('gsc-dockerfile-');
    chmodSync(scratch, 0o755);
    const context = join(scratch, 'context');
    mkdirSync(context);
    buildContext(REPO, context);
    const roots = await replay(stages, {
      context,
      scratch,
      path: PATH,
      home: process.env.HOME ?? scratch,
      npmCache: NPM_CACHE,
      // Registry and proxy settings a builder would have; nothing else from this process.
      buildEnv: npmEnv(),
    });
    runtimeRoot = roots.get(runtime.name)!;
    // The node image ships /home/node owned by node; the server keeps its state under HOME.
    mkdirSync(join(runtimeRoot, 'home/node'), { recursive: true });
    if (AS_NODE_USER.uid !== undefined) {
      chownSync(join(runtimeRoot, 'home/node'), AS_NODE_USER.uid, AS_NODE_USER.gid);
    }
  }, 600_000);

  afterAll(() => {
    if (scratch) {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('builds from a clean checkout in two stages on Node 24 slim, and runs as a non-root user', () => {
    expect(process.version).toMatch(/^v24\./);
    expect(stages.map((s) => s.image)).toEqual(stages.map(() => expect.stringMatching(/^node:24(\.\d+)*-slim$/)));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(runtime.user).toEqual(expect.any(String));
    expect(['root', '0']).not.toContain(runtime.user);
    expect(runtime.healthcheck).toBeDefined();
    expect(runtime.entrypoint).toBeDefined();
    // Production dependencies only: no compiler, test runner or bundler in the image.
    const modules = join(inside(runtimeRoot, runtime.workdir), 'node_modules');
    expect(existsSync(join(modules, '@modelcontextprotocol/server'))).toBe(true);
    for (const dev of ['typescript', 'jest', 'esbuild', '@nestjs/cli', '@swc/core']) {
      expect([dev, existsSync(join(modules, dev))]).toEqual([dev, false]);
    }
    expect(existsSync(join(inside(runtimeRoot, runtime.workdir), 'dist/main.js'))).toBe(true);
    // The OpenTelemetry SDK, an optional peer of the npm package, is in the image at the versions package.json pins.
    const { peerDependencies } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    const otel = Object.keys(peerDependencies).filter((name) => name.startsWith('@opentelemetry/'));
    expect(otel.length).toBeGreaterThan(0);
    for (const name of otel) {
      const installed = join(modules, name, 'package.json');
      expect([name, existsSync(installed) && (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version]).toEqual([
        name,
        peerDependencies[name],
      ]);
    }
  });

  it('with nothing but the image ENV, refuses to listen on 0.0.0.0 without GSC_HTTP_TOKEN: one line, exit 1', async () => {
    const [command, ...args] = runtime.entrypoint!;
    const child = spawn(command, args, { cwd: inside(runtimeRoot, runtime.workdir), env: containerEnv({}), ...AS_NODE_USER });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((exited) => child.on('close', exited));
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('GSC_HTTP_TOKEN')]);
  });

  it('serves with the image ENV and ENTRYPOINT, and its HEALTHCHECK passes when GSC_ADMIN_TOKEN is unset', async () => {
    const container = await run(await local());
    try {
      expect(container.env.GSC_TRANSPORT).toBe('http');
      expect(await healthcheck(container.env)).toEqual({ code: 0, output: 'healthy' });
      // The server card is generated from server.json, which the image must carry.
      const card = await fetch(`http://127.0.0.1:${container.env.GSC_HTTP_PORT}/mcp/server-card`);
      expect(card.status).toBe(200);
      expect(((await card.json()) as { name: string }).name).toBe(JSON.parse(readFileSync(join(REPO, 'server.json'), 'utf8')).name);
    } finally {
      await container.stop();
    }
  });

  it('with GSC_ADMIN_TOKEN set, the HEALTHCHECK passes by presenting it (the server answers 401 without it)', async () => {
    const container = await run(await local({ GSC_ADMIN_TOKEN: 'replay-admin-token-0123456789' }));
    try {
      expect(await healthcheck(container.env)).toEqual({ code: 0, output: 'healthy' });
      const withoutToken = await healthcheck({ ...container.env, GSC_ADMIN_TOKEN: '' });
      expect(withoutToken.code).toBe(1);
      expect(withoutToken.output).toMatch(/HTTP 401/);
      const wrongToken = await healthcheck({ ...container.env, GSC_ADMIN_TOKEN: 'not-the-servers-token-0123456789' });
      expect(wrongToken.code).toBe(1);
      expect(wrongToken.output).toMatch(/HTTP 401/);
    } finally {
      await container.stop();
    }
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT set, exports a server span per MCP request: the image carries the OpenTelemetry SDK', async () => {
    const receiver = await OtlpReceiver.start();
    try {
      const env = await local({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      const container = await run(env);
      try {
        const client = await connectHttp(
          `http://127.0.0.1:${env.GSC_HTTP_PORT}/mcp`,
          { revision: '2026-07-28' },
          { authorization: `Bearer ${env.GSC_HTTP_TOKEN}` },
        );
        try {
          expect((await client.listTools()).length).toBeGreaterThan(0);
        } finally {
          await client.close();
        }
      } finally {
        // A graceful stop flushes the spans still batched.
        await container.stop();
      }
      await receiver.until(() => receiver.spans().some((span) => span.name === 'tools/list'));
      const span = receiver.spans().find((s) => s.name === 'tools/list')!;
      expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2026-07-28' });
      expect(receiver.resource()['service.name']).toBe('google-search-console-mcp');
    } finally {
      await receiver.close();
    }
  });

  it('the HEALTHCHECK fails once the server has stopped', async () => {
    const container = await run(await local());
    try {
      expect((await healthcheck(container.env)).code).toBe(0);
    } finally {
      await container.stop();
    }
    const after = await healthcheck(container.env);
    expect(after.code).toBe(1);
    expect(after.output).toMatch(/^unhealthy: cannot reach http:\/\/127\.0\.0\.1:\d+\/admin\/health/);
  });
});

describe('the replay refuses what it does not model, naming the line', () => {
  it.each([
    ['ADD', 'FROM node:24-slim\nADD . /app', /line 2: ADD is not supported/],
    ['ARG', 'ARG VERSION=1\nFROM node:24-slim', /line 1: ARG is not supported/],
    ['CMD', 'FROM node:24-slim\nCMD ["node"]', /line 2: CMD is not supported/],
    ['COPY --chown', 'FROM node:24-slim\nCOPY --chown=node:node . .', /line 2: COPY --chown is not supported/],
    ['RUN --mount=type=secret', 'FROM node:24-slim\nRUN --mount=type=secret,id=npm npm ci', null],
    ['variable substitution', 'FROM node:24-slim\nWORKDIR $HOME/app', /line 2: WORKDIR uses variable substitution/],
    ['shell-form ENTRYPOINT', 'FROM node:24-slim\nENTRYPOINT node dist/main.js', /line 2: ENTRYPOINT must use the exec/],
    ['FROM an earlier stage', 'FROM node:24-slim AS base\nFROM base', /line 2: FROM from an earlier stage/],
  ])('%s', async (_name, text, message) => {
    if (message) {
      expect(() => parseDockerfile(text)).toThrow(message);
    } else {
      // Parsed, but refused when replayed.
      const parsed = parseDockerfile(text);
      const dir = mkdtempSync(join(tmpdir(), 'gsc-dockerfile-refuse-'));
      try {
        await expect(replay(parsed, { context: dir, scratch: dir, path: PATH, home: dir, npmCache: dir, buildEnv: {} })).rejects.toThrow(
          /line 2 .*--mount=type=secret,id=npm is not supported/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('.dockerignore keeps local artefacts and secrets out of the build context', () => {
    const ignored = dockerignore(readFileSync(join(REPO, '.dockerignore'), 'utf8'));
    for (const path of ['node_modules/x/index.js', 'dist/main.js', '.env', '.git/HEAD', 'scratch/a']) {
      expect([path, ignored(path)]).toEqual([path, true]);
    }
    for (const path of ['package.json', 'src/main.ts', 'Dockerfile']) {
      expect([path, ignored(path)]).toEqual([path, false]);
    }
  });
});
