import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './raw-http.js';

export interface RedisServer {
  /** redis://127.0.0.1:<port>/0 */
  readonly url: string;
  readonly port: number;
  /** SIGTERM, then waits for the exit; the folder is removed. */
  stop(): Promise<void>;
  /** SIGKILL (Redis "crashes"), waits for the exit; restart() can bring it back on the same port. */
  kill(): Promise<void>;
  /** Starts redis-server again on the same port (empty: nothing is persisted) and waits until it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP: the port still accepts connections but nothing answers (a hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

const START_TIMEOUT_MS = 10_000;

/**
 * A real redis-server of this test's own, on a free loopback port in a temporary
 * folder, persisting nothing. Throws, loudly, when redis-server is missing or
 * does not answer: tests that need Redis must never skip silently.
 */
export async function startRedisServer(extraArgs: readonly string[] = []): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `redis-server is not installed or does not run (${probe.error?.message ?? probe.stderr.trim()}); install it with "apt-get install -y redis-server" (.ci/run does this)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'gsc-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      let child = await launch(port, dir, extraArgs);
      const server: RedisServer = {
        url: `redis://127.0.0.1:${port}/0`,
        port,
        stop: async () => {
          await end(child, 'SIGTERM');
          rmSync(dir, { recursive: true, force: true });
        },
        kill: () => end(child, 'SIGKILL'),
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
        restart: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            throw new Error('redis-server is still running; kill() or stop() it first');
          }
          child = await launch(port, dir, extraArgs);
        },
      };
      return server;
    } catch (error) {
      lastError = error; // most likely the port was taken between probing and binding; try another
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not start: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
}

async function launch(port: number, dir: string, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
  child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited with ${child.exitCode}: ${output.trim()}`);
    }
    if (await answersPing(port)) {
      return child;
    }
    await sleep(25);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms: ${output.trim()}`);
}

function end(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    if (signal === 'SIGTERM') {
      child.kill('SIGCONT');
    } // a paused server cannot act on SIGTERM
    child.kill(signal);
  });
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d.toString();
      // -NOAUTH: up, but wants a password (a test started it with --requirepass).
      if (reply.includes('\r\n')) {
        finish(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
      }
    });
  });
}
