import { execFileSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';

/** The Node 24 this suite runs on (the repository pins it), first on PATH for every child. */
export const NODE_DIR = dirname(process.execPath);

/**
 * PATH for a child that must behave as on a fresh machine: this Node, then the
 * system's tools (sh, npm, du) — never this checkout's node_modules/.bin.
 */
export const CLEAN_PATH = [
  NODE_DIR,
  ...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.includes('node_modules')),
].join(delimiter);

/** npm's cache folder, shared with the npm that installed this checkout. */
export const NPM_CACHE = process.env.npm_config_cache ?? join(process.env.HOME ?? '/tmp', '.npm');

/**
 * An environment for npm run outside this checkout: PATH and HOME (npm's user
 * config), registry and proxy settings, nothing else. `npm run` exports
 * npm_config_local_prefix and friends, which would point npm at this checkout.
 */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: CLEAN_PATH, HOME: process.env.HOME ?? '/tmp', npm_config_cache: NPM_CACHE };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && /^(https?_proxy|no_proxy|npm_config_registry|NODE_EXTRA_CA_CERTS|TMPDIR)$/i.test(name)) {
      env[name] = value;
    }
  }
  // Take packages from npm's cache when it has them; the registry only for what it lacks.
  env.npm_config_prefer_offline = 'true';
  return { ...env, ...extra };
}

/** Runs npm with npmEnv(); throws with npm's output when it fails. */
export function npm(args: string[], cwd: string, extra: Record<string, string> = {}): string {
  try {
    return execFileSync('npm', args, {
      cwd,
      env: npmEnv(extra),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: error });
  }
}

/** Bytes on disk under a folder, as `du -sb` counts them. */
export function duBytes(path: string): number {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}
