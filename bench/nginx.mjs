// Debian's nginx in front of server replicas, for bench/replicas.mjs and its
// short run in `npm test`: the load balancer an operator would put there,
// configured by deploy/nginx/google-search-console-mcp.conf (the file the
// README points at), with only its replica addresses and listen port swapped.
// It runs as this user's own process (never the system service): `daemon off`,
// its configuration, pid file, error log and temporary folders in a folder of
// its own, listening on a free loopback port. As root, its workers drop to
// `nobody` as nginx's always do; the folder is made readable for them.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from './common.mjs';

export const NGINX_SITE = join(ROOT, 'deploy/nginx/google-search-console-mcp.conf');
const START_TIMEOUT_MS = 10_000;

/** The nginx binary: NGINX_PATH, Debian's /usr/sbin/nginx, or `nginx` on PATH. Throws, loudly, when there is none. */
export function nginxBinary() {
  const candidates = [process.env.NGINX_PATH, '/usr/sbin/nginx', 'nginx'].filter(Boolean);
  for (const candidate of candidates) {
    if (candidate.includes('/') && !existsSync(candidate)) {
      continue;
    }
    const probe = spawnSync(candidate, ['-v'], { encoding: 'utf8' });
    if (!probe.error && probe.status === 0) {
      return candidate;
    }
  }
  throw new Error('nginx is not installed; install it with "apt-get install -y nginx" (.ci/run does this), or set NGINX_PATH');
}

/** The three replica addresses the shipped file names, each in the pool, as its own upstream and in the map. */
const TEMPLATE_REPLICAS = ['127.0.0.1:3001', '127.0.0.1:3002', '127.0.0.1:3003'];

/**
 * deploy/nginx/google-search-console-mcp.conf with three `replicas` (host:port)
 * in place of its example addresses and `listen` as its listen address. Throws
 * when the file no longer has the shape this relies on, so the tested
 * configuration cannot drift from the shipped one unnoticed.
 */
export function renderSite(listen, replicas, text = readFileSync(NGINX_SITE, 'utf8')) {
  if (replicas.length !== TEMPLATE_REPLICAS.length) {
    throw new Error(`${NGINX_SITE} names ${TEMPLATE_REPLICAS.length} replicas; got ${replicas.length}`);
  }
  // One pass, so that a test address can never be taken for a template one.
  const inMap = (address) => address.replaceAll('.', '\\.');
  const source = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(TEMPLATE_REPLICAS.flatMap((a) => [source(`server ${a}`), source(inMap(a))]).join('|'), 'g');
  const places = new Map(TEMPLATE_REPLICAS.map((a) => [a, 0]));
  const rendered = text.replace(pattern, (found) => {
    const i = TEMPLATE_REPLICAS.findIndex((a) => found === `server ${a}` || found === inMap(a));
    places.set(TEMPLATE_REPLICAS[i], places.get(TEMPLATE_REPLICAS[i]) + 1);
    return found.startsWith('server ') ? `server ${replicas[i]}` : inMap(replicas[i]);
  });
  for (const [address, n] of places) {
    if (n !== 3) {
      throw new Error(`${NGINX_SITE} should name ${address} three times (pool, own upstream, map); found ${n}`);
    }
  }
  const listens = rendered.match(/^[ \t]*listen [^;\n]+;/gm) ?? [];
  if (listens.length !== 1) {
    throw new Error(`${NGINX_SITE} should have one listen line; found ${listens.length}`);
  }
  return rendered.replace(/^([ \t]*)listen [^;\n]+;/m, (_, indent) => `${indent}listen ${listen};`);
}

/** nginx in front of `replicas` (host:port strings): resolves with its /mcp URL once it accepts connections. */
export async function startNginx(replicas) {
  const binary = nginxBinary();
  const dir = mkdtempSync(join(tmpdir(), 'replica-nginx-'));
  // Workers run as `nobody` when nginx is started by root: they must reach the temporary folders inside.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'site.conf'), renderSite(`127.0.0.1:${port}`, replicas));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${join(dir, t)};`).join(' ');
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 4096; }',
      'http {',
      // Which replica answered each request naming a session: the replicas bench checks routing from this log.
      "  log_format gsc_routing '$http_mcp_session_id $upstream_addr';",
      `  access_log ${join(dir, 'access.log')} gsc_routing;`,
      `  ${temp}`,
      `  include ${join(dir, 'site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  const errorLog = () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  const test = spawnSync(binary, ['-t', '-q', ...args], { encoding: 'utf8' });
  if (test.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx refused the configuration: ${test.stderr.trim()}`);
  }
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // On any exit of this process nginx gets SIGTERM (fast shutdown; its workers go with it).
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitForPort(port, child);
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${error.message}\n${stderr}${errorLog()}`, { cause: error });
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    /** nginx's own error log: upstream failures are logged here as warnings and errors. */
    errorLog,
    /** One line per request: the Mcp-Session-Id the client sent ("-" for none) and the replica(s) nginx tried. */
    accessLog: () => (existsSync(join(dir, 'access.log')) ? readFileSync(join(dir, 'access.log'), 'utf8') : ''),
    async stop() {
      process.off('exit', stopOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port, child) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}) before listening`);
    }
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(true) || socket.destroy());
      socket.once('error', () => resolve(false));
    });
    if (open) {
      return;
    }
    await sleep(20);
  }
  throw new Error(`nginx did not listen on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms`);
}

export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}
