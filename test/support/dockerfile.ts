import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, matchesGlob, resolve } from 'node:path';

/**
 * Just enough of the Dockerfile language to replay this repository's
 * Dockerfile without a Docker engine. Everything it does not model is refused
 * with the line number, so a new instruction cannot slip past the replay test.
 */

export interface Instruction {
  readonly line: number;
  readonly keyword: string;
  readonly flags: Record<string, string>;
  readonly args: string;
}

export interface HealthCheck {
  readonly command: string[];
  readonly timeoutMs: number;
}

export interface Stage {
  readonly name: string;
  readonly image: string;
  readonly steps: Instruction[];
  readonly env: Record<string, string>;
  readonly workdir: string;
  readonly user?: string;
  readonly entrypoint?: string[];
  readonly healthcheck?: HealthCheck;
  readonly expose: number[];
}

const KNOWN = new Set(['FROM', 'WORKDIR', 'COPY', 'RUN', 'ENV', 'USER', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT']);
const FLAGS: Record<string, string[]> = {
  COPY: ['from'],
  RUN: ['mount'],
  HEALTHCHECK: ['interval', 'timeout', 'start-period', 'start-interval', 'retries'],
};

export function parseDockerfile(text: string): Stage[] {
  const stages: { -readonly [K in keyof Stage]: Stage[K] }[] = [];
  for (const instruction of instructions(text)) {
    const fail = (why: string): never => {
      throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} ${why}`);
    };
    if (!KNOWN.has(instruction.keyword)) {
      fail('is not supported by the replay (test/support/dockerfile.ts)');
    }
    for (const flag of Object.keys(instruction.flags)) {
      if (!FLAGS[instruction.keyword]?.includes(flag)) {
        fail(`--${flag} is not supported by the replay`);
      }
    }
    if (instruction.keyword !== 'RUN' && instruction.args.includes('$')) {
      fail('uses variable substitution, which the replay does not model');
    }
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args) ?? fail('must be "FROM <image> [AS <name>]"');
      if (stages.some((s) => s.name === match[1])) {
        fail('from an earlier stage is not supported');
      }
      stages.push({ name: match[2] ?? String(stages.length), image: match[1], steps: [], env: {}, workdir: '/', expose: [] });
      continue;
    }
    const stage = stages.at(-1) ?? fail('comes before any FROM');
    switch (instruction.keyword) {
      case 'WORKDIR':
        if (!instruction.args.startsWith('/')) {
          fail('must be an absolute path');
        }
        stage.workdir = instruction.args;
        stage.steps.push(instruction);
        break;
      case 'ENV':
        Object.assign(stage.env, parseEnv(instruction.args, fail));
        stage.steps.push(instruction);
        break;
      case 'USER':
        stage.user = instruction.args;
        break;
      case 'EXPOSE':
        stage.expose.push(
          ...instruction.args.split(/\s+/).map((p) => (/^\d+(\/tcp)?$/.test(p) ? Number.parseInt(p, 10) : fail(`${p} is not a TCP port`))),
        );
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = execForm(instruction.args, fail);
        break;
      case 'HEALTHCHECK': {
        const cmd = /^CMD\s+(.*)$/s.exec(instruction.args) ?? fail('must be "HEALTHCHECK [options] CMD [...]"');
        stage.healthcheck = { command: execForm(cmd[1], fail), timeoutMs: seconds(instruction.flags.timeout ?? '30s', fail) * 1000 };
        break;
      }
      default:
        stage.steps.push(instruction);
    }
  }
  if (stages.length === 0) {
    throw new Error('Dockerfile has no FROM');
  }
  return stages;
}

function* instructions(text: string): Generator<Instruction> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i];
    if (/^\s*(#.*)?$/.test(logical)) {
      continue;
    }
    while (logical.endsWith('\\')) {
      logical = logical.slice(0, -1);
      // Comment lines inside a continuation are dropped, as Docker does.
      do {
        i++;
      } while (i < lines.length && /^\s*#/.test(lines[i]));
      logical += ` ${lines[i] ?? ''}`;
    }
    const [, keyword, rest] = /^\s*(\S+)\s*(.*)$/s.exec(logical)!;
    const flags: Record<string, string> = {};
    let args = rest.trim();
    for (let flag = /^--([a-z-]+)=(\S+)\s*/.exec(args); flag; flag = /^--([a-z-]+)=(\S+)\s*/.exec(args)) {
      flags[flag[1]] = flag[2];
      args = args.slice(flag[0].length);
    }
    yield { line: start + 1, keyword: keyword.toUpperCase(), flags, args: args.trim() };
  }
}

function parseEnv(args: string, fail: (why: string) => never): Record<string, string> {
  const env: Record<string, string> = {};
  const pair = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)\s*/y;
  let at = 0;
  while (at < args.length) {
    pair.lastIndex = at;
    const match = pair.exec(args) ?? fail('must be KEY=value pairs');
    env[match[1]] = match[2].startsWith('"') ? (JSON.parse(match[2]) as string) : match[2];
    at = pair.lastIndex;
  }
  return env;
}

function execForm(args: string, fail: (why: string) => never): string[] {
  try {
    const parsed: unknown = JSON.parse(args);
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((a) => typeof a === 'string')) {
      return parsed;
    }
  } catch {
    // fall through to the message below
  }
  return fail('must use the exec (JSON array) form, so no shell rewrites the command');
}

function seconds(duration: string, fail: (why: string) => never): number {
  const match = /^(\d+)s$/.exec(duration) ?? fail(`duration ${duration} must be whole seconds, e.g. 5s`);
  return Number(match[1]);
}

// ---------------------------------------------------------------------------

export interface ReplayOptions {
  /** The build context (files as `docker build` would send them). */
  readonly context: string;
  /** Scratch folder; each stage gets its own file-system root below it. */
  readonly scratch: string;
  /** PATH for RUN steps: where the base image's node, npm and sh are. */
  readonly path: string;
  /** Host folder standing in for a `--mount=type=cache,target=/root/.npm`. */
  readonly npmCache: string;
  /** HOME for RUN steps (npm's user config lives there). */
  readonly home: string;
  /** Extra build-time environment (registry, proxy settings). */
  readonly buildEnv: Record<string, string>;
  readonly log?: (line: string) => void;
}

/**
 * Replays every stage's WORKDIR/COPY/RUN; resolves each stage's root folder by name.
 * Stages run at the same time, as BuildKit runs them: a `COPY --from` waits for
 * the stage it names to finish, nothing else does.
 */
export async function replay(stages: Stage[], options: ReplayOptions): Promise<Map<string, string>> {
  const roots = new Map<string, string>();
  const done = new Map<string, Promise<void>>();
  for (const stage of stages) {
    const root = join(options.scratch, `stage-${stage.name}`);
    mkdirSync(root, { recursive: true });
    // Only the stages before this one, as Docker allows.
    const earlier = { roots: new Map(roots), done: new Map(done) };
    roots.set(stage.name, root);
    done.set(stage.name, replayStage(stage, root, earlier, options));
  }
  // Every stage settles before an error is reported, so no RUN is left writing into the scratch folder.
  const failed = (await Promise.allSettled(done.values())).find((result) => result.status === 'rejected');
  if (failed) {
    throw failed.reason;
  }
  return roots;
}

interface Earlier {
  readonly roots: Map<string, string>;
  readonly done: Map<string, Promise<void>>;
}

async function replayStage(stage: Stage, root: string, earlier: Earlier, options: ReplayOptions): Promise<void> {
  let workdir = '/';
  // ENV applies from its line on, so RUN sees only what came before it.
  const env: Record<string, string> = {};
  for (const step of stage.steps) {
    const where = `Dockerfile line ${step.line} (${step.keyword} in stage ${stage.name})`;
    if (step.keyword === 'WORKDIR') {
      workdir = step.args;
      mkdirSync(inside(root, workdir), { recursive: true });
    } else if (step.keyword === 'ENV') {
      Object.assign(
        env,
        parseEnv(step.args, (why) => fail(`${where}: ${why}`)),
      );
    } else if (step.keyword === 'COPY') {
      await earlier.done.get(step.flags.from ?? '');
      copy(step, earlier.roots, options.context, root, workdir, where);
    } else {
      await run(step, env, inside(root, workdir), options, where);
    }
  }
}

/** A container path inside a stage's root folder. */
export function inside(root: string, containerPath: string): string {
  return join(root, containerPath);
}

function copy(step: Instruction, roots: Map<string, string>, context: string, root: string, workdir: string, where: string): void {
  const words = step.args.split(/\s+/);
  if (words.length < 2 || step.args.startsWith('[')) {
    throw new Error(`${where}: COPY must be "COPY <src>... <dest>"`);
  }
  const dest = words.pop()!;
  const from = step.flags.from;
  const base = from === undefined ? context : (roots.get(from) ?? fail(`${where}: --from=${from} names no earlier stage`));
  const target = inside(root, resolve(workdir, dest));
  const sources = words.flatMap((src) =>
    expand(base, from === undefined ? src : src.replace(/^\//, ''), from === undefined ? 'the build context' : `stage ${from}`, where),
  );
  if (sources.length > 1 && !dest.endsWith('/')) {
    throw new Error(`${where}: several sources need a destination ending in /`);
  }
  for (const source of sources) {
    const into = dest.endsWith('/') && !statSync(source).isDirectory() ? join(target, basename(source)) : target;
    mkdirSync(dirname(into), { recursive: true });
    // Docker copies a directory's contents into the destination, file modes kept.
    cpSync(source, into, { recursive: true, preserveTimestamps: true });
  }
}

function expand(base: string, pattern: string, label: string, where: string): string[] {
  if (!/[*?[]/.test(pattern)) {
    const path = join(base, pattern);
    if (!existsSync(path)) {
      throw new Error(`${where}: ${pattern} is not in ${label}`);
    }
    return [path];
  }
  if (/[*?[]/.test(dirname(pattern))) {
    throw new Error(`${where}: the replay expands wildcards in the last path segment only`);
  }
  const dir = join(base, dirname(pattern));
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const matches = names.filter((name) => matchesGlob(name, basename(pattern))).map((name) => join(dir, name));
  if (matches.length === 0) {
    throw new Error(`${where}: ${pattern} matches nothing in ${label}`);
  }
  return matches;
}

async function run(step: Instruction, stageEnv: Record<string, string>, cwd: string, options: ReplayOptions, where: string): Promise<void> {
  if (step.args.startsWith('[')) {
    throw new Error(`${where}: the replay runs RUN in shell form only`);
  }
  const env: Record<string, string> = { PATH: options.path, HOME: options.home, ...options.buildEnv, ...stageEnv };
  if (step.flags.mount !== undefined) {
    // The only mount the replay models: npm's cache, persistent across builds and outside the image.
    if (step.flags.mount !== 'type=cache,target=/root/.npm') {
      throw new Error(`${where}: --mount=${step.flags.mount} is not supported (only type=cache,target=/root/.npm)`);
    }
    env.npm_config_cache = options.npmCache;
  }
  options.log?.(`${where}: ${step.args}`);
  const child = spawn('sh', ['-c', step.args], { cwd, env, timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'] });
  // The end of what it printed, for the error below.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64 * 1024));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    const tail = output.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${where} failed (${signal ? `killed by ${signal}` : `exit ${code}`}): ${step.args}\n${tail}`);
  }
}

function fail(message: string): never {
  throw new Error(message);
}

// ---------------------------------------------------------------------------

/**
 * The build context as a fresh clone plus this working tree's changes would
 * send it: tracked and untracked-but-not-ignored files that exist, minus what
 * .dockerignore excludes. Never node_modules or dist from this checkout.
 */
export function buildContext(repo: string, into: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' });
  const ignore = existsSync(join(repo, '.dockerignore')) ? dockerignore(readFileSync(join(repo, '.dockerignore'), 'utf8')) : () => false;
  const files = [...new Set(listed.split('\0').filter(Boolean))].filter((file) => existsSync(join(repo, file)) && !ignore(file));
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(repo, file), join(into, file), { preserveTimestamps: true });
  }
  // The stages run as another user when the test runs as root; let it read the tree.
  chmodSync(into, 0o755);
  return files;
}

/** .dockerignore: one pattern per line, `#` comments, `!` re-includes, a directory pattern covers its contents. */
export function dockerignore(text: string): (file: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => ({ negate: l.startsWith('!'), pattern: l.replace(/^!/, '').replace(/^\/+|\/+$/g, '') }));
  return (file) => {
    let excluded = false;
    const parts = file.split('/');
    for (const { negate, pattern } of rules) {
      const hit = parts.some((_, i) => matchesGlob(parts.slice(0, i + 1).join('/'), pattern));
      if (hit) {
        excluded = !negate;
      }
    }
    return excluded;
  };
}
