#!/usr/bin/env node
/**
 * The container's HEALTHCHECK: is the HTTP server in this container answering
 * /admin/health? Docker starts it as its own process with the container's
 * environment, so it still sees GSC_ADMIN_TOKEN even though the server removed
 * it from its own process.env. Deliberately tiny and dependency-free: it runs
 * every interval, and it must not load (or fail on) the server's configuration.
 *
 * Exit 0 when healthy, 1 otherwise, with one line saying why (Docker keeps it
 * in `docker inspect`'s health log).
 */
import { request } from 'node:http';
import { exitOnOldNode } from './common/node-version.js';

exitOnOldNode();

const TIMEOUT_MS = 2500;

function setting(name: string): string | undefined {
  // The server's rule: empty or whitespace-only counts as unset.
  const value = process.env[name]?.trim();
  return value ? value : undefined;
}

/** Where to reach the server from inside its own container. */
function target(): { host: string; port: number } | string {
  const rawPort = setting('GSC_HTTP_PORT') ?? '3000';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
    return `GSC_HTTP_PORT=${rawPort} is not a fixed port (1-65535), so there is nothing to check`;
  }
  const bind = setting('GSC_HTTP_HOST') ?? '127.0.0.1';
  // A wildcard bind answers on loopback too, and loopback is what /admin accepts without a token.
  if (bind === '0.0.0.0') {
    return { host: '127.0.0.1', port };
  }
  if (bind === '::' || bind === '[::]') {
    return { host: '::1', port };
  }
  const host = bind.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  if (!loopback && !setting('GSC_ADMIN_TOKEN')) {
    return `GSC_HTTP_HOST=${bind} is not loopback, and /admin answers non-loopback callers only with GSC_ADMIN_TOKEN; set GSC_ADMIN_TOKEN or bind 0.0.0.0`;
  }
  return { host, port };
}

function check(): Promise<string | undefined> {
  const where = target();
  if (typeof where === 'string') {
    return Promise.resolve(where);
  }
  const token = setting('GSC_ADMIN_TOKEN');
  return new Promise((resolve) => {
    const req = request(
      {
        host: where.host,
        port: where.port,
        path: '/admin/health',
        headers: token ? { authorization: `Bearer ${token}` } : {},
        timeout: TIMEOUT_MS,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode === 401) {
            return resolve(
              `/admin/health answered HTTP 401: ${token ? 'this GSC_ADMIN_TOKEN is not the server’s' : 'the server wants GSC_ADMIN_TOKEN, which this check’s environment lacks'}`,
            );
          }
          if (res.statusCode !== 200) {
            return resolve(`/admin/health answered HTTP ${res.statusCode}`);
          }
          try {
            const status = (JSON.parse(body) as { status?: unknown }).status;
            resolve(status === 'ok' ? undefined : `/admin/health reported status ${JSON.stringify(status)}`);
          } catch {
            resolve('/admin/health answered something other than JSON');
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', (error) =>
      resolve(
        `cannot reach http://${where.host.includes(':') ? `[${where.host}]` : where.host}:${where.port}/admin/health: ${error.message}`,
      ),
    );
    req.end();
  });
}

const problem = await check();
if (problem) {
  process.stderr.write(`unhealthy: ${problem}\n`);
  process.exit(1);
}
// Its own process (Docker's HEALTHCHECK), never the MCP server's stdio: stdout is Docker's health log.
process.stdout.write('healthy\n');
