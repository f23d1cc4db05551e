import { type ChildProcess, spawn } from 'node:child_process';
import { isolatedEnv, MAIN } from './env.js';

export interface HttpBinary {
  readonly origin: string;
  readonly url: string;
  readonly process: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns the built server with GSC_TRANSPORT=http on a free port and waits for its start-up line. */
export async function spawnHttpBinary(env: Record<string, string>, command: string[] = [MAIN]): Promise<HttpBinary> {
  const child = spawn(process.execPath, command, { env: isolatedEnv({ GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0', ...env }) });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const origin = await new Promise<string>((resolve, reject) => {
    // A server that did not start in time is killed, never left running after the suite.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${stderr}`));
    }, 20000);
    const check = () => {
      const match = /serving HTTP on (http:\/\/[^\s/]+)\/mcp/.exec(stderr) ?? /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', check);
    child.stdout.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${stderr}`)));
  });
  return {
    origin,
    url: `${origin}/mcp`,
    process: child,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          return resolve();
        }
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
