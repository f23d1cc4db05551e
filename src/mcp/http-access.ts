import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type AuthInfo, localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';
import { type Config, isLoopback } from '../config/config.js';

export type Rejection = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * Who may talk to /mcp: DNS-rebinding protection (Host on a loopback bind,
 * Origin always — a missing Origin is a non-browser client and passes) and the
 * GSC_HTTP_TOKEN bearer token. Answers are JSON-RPC error bodies, as MCP
 * clients expect from the endpoint.
 */
export function checkMcpAccess(req: IncomingMessage, config: Config): Rejection | AuthInfo | undefined {
  const http = config.http;
  if (isLoopback(http.host)) {
    const host = validateHostHeader(req.headers.host, localhostAllowedHostnames());
    if (!host.ok) return rpcError(403, `Invalid Host: ${req.headers.host ?? '(none)'}`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, config)) return rpcError(403, `Invalid Origin: ${origin}; add it to GSC_ALLOWED_ORIGINS to allow it`);
  if (!http.token) return undefined;
  const presented = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  if (!presented || !sameSecret(presented, http.token)) {
    return { ...rpcError(401, 'Missing or invalid bearer token (GSC_HTTP_TOKEN)'), headers: { 'WWW-Authenticate': 'Bearer realm="google-search-console-mcp"' } };
  }
  return { token: 'redacted', clientId: principalFor(http.token), scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
}

export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

// The shared token identifies one principal; its hash names it without revealing it.
function principalFor(token: string): string {
  return `bearer:${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

function originAllowed(origin: string, config: Config): boolean {
  if (config.http.allowedOrigins.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return isLoopback(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:');
  } catch {
    return false;
  }
}

export function rpcError(status: number, message: string, code = -32000): Rejection {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}
