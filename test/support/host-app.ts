import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLEAN_PATH, npm } from './npm.js';
import { rawRequest } from './raw-http.js';

// The example host app (examples/company-backend) as a company would run it:
// copied out of this checkout, installed from the packed tarball, built with
// its own tsc, started with node. Nothing of this checkout's node_modules.

export const EXAMPLE = resolve(import.meta.dirname, '..', '..', 'examples', 'company-backend');
export const PRODUCT = 'google-search-console-mcp';

/** Copies the example into `dir` with its dependency on the product pointed at `tarball`, and installs it. */
export function installExample(dir: string, tarball: string): void {
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) && !src.endsWith('.env') });
  const manifestPath = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dependencies: Record<string, string> };
  if (!manifest.dependencies[PRODUCT]?.startsWith('file:')) {
    throw new Error(`the example must depend on ${PRODUCT} by a file: tarball path`);
  }
  manifest.dependencies[PRODUCT] = `file:${tarball}`;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  npm(['install', '--no-audit', '--no-fund'], dir);
}

/**
 * What a company pinning other versions of its dependencies does (e.g. an older
 * Nest): a copy of the installed app `from` (its node_modules and lockfile, no
 * build output), then `npm install name@version…` in it.
 */
export function pinDependencies(from: string, dir: string, versions: Record<string, string>): void {
  const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(versions)) {
    if (!manifest.dependencies[name]) {
      throw new Error(`the example does not depend on ${name}`);
    }
  }
  // verbatimSymlinks: node_modules/.bin's relative links must point into the copy, not back at `from`.
  cpSync(from, dir, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => src === from || !/^[/\\](dist|types-check)$/.test(src.slice(from.length)),
  });
  npm(
    ['install', '--no-audit', '--no-fund', '--save-exact', ...Object.entries(versions).map(([name, version]) => `${name}@${version}`)],
    dir,
  );
}

/** Every copy of each package npm installed, as one `npm ls` reports them: per name, one line per distinct path and version. */
export function installedCopies(dir: string, names: string[]): Record<string, string[]> {
  const tree = JSON.parse(npm(['ls', ...names, '--all', '--long', '--json'], dir)) as LsNode;
  const copies = new Map(names.map((name) => [name, new Set<string>()]));
  const walk = (node: LsNode) => {
    for (const [dep, child] of Object.entries(node.dependencies ?? {})) {
      if (child.path) {
        copies.get(dep)?.add(`${child.version} ${child.path}`);
      }
      walk(child);
    }
  };
  walk(tree);
  return Object.fromEntries([...copies].map(([name, paths]) => [name, [...paths]]));
}

interface LsNode {
  version?: string;
  path?: string;
  dependencies?: Record<string, LsNode>;
}

export interface RunningHost {
  /** e.g. http://127.0.0.1:41234 */
  readonly origin: string;
  output(): string;
  stop(): Promise<void>;
}

/** An environment for the host app: PATH and HOME, the variables given, nothing else of this process. */
export function hostEnv(vars: Record<string, string>): Record<string, string> {
  return { PATH: CLEAN_PATH, HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...vars };
}

/** Starts `node dist/main.js` on a free loopback port and waits for its "listening on" line. */
export async function startHost(dir: string, vars: Record<string, string>): Promise<RunningHost> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: hostEnv({ PORT: '0', HOST: '127.0.0.1', ...vars }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const origin = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host app did not start within 60 s:\n${output}`)), 60_000);
    const seen = () => {
      const match = /company-backend listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]);
      }
    };
    child.stdout.on('data', seen);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the host app exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  return { origin, output: () => output, stop: () => stopChild(child) };
}

/** Runs the host app to its end (for a start-up that must fail): exit code and output. */
export function runHostToExit(dir: string, vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: hostEnv({ PORT: '0', HOST: '127.0.0.1', ...vars }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolvePromise) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    }),
  );
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface HostAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  json(): any;
}

/** One HTTP request with full control of the headers (Host included, which fetch does not let us set). */
export async function hostRequest(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HostAnswer> {
  // Always JSON, even a string: rawRequest would send a string body as it is.
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const { status, headers, text } = await rawRequest(new URL(path, origin).href, { ...options, body });
  return { status, contentType: String(headers['content-type'] ?? ''), text, json: () => JSON.parse(text) };
}
