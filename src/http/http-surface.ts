import type { IncomingMessage } from 'node:http';
import { type Config, isLoopback } from '../config/config.js';
import type { HttpMount } from './http-mount.js';

// DNS-rebinding protection for every route the server mounts (/mcp, admin,
// metrics, the OAuth metadata): a page on attacker.example that resolves its
// name to 127.0.0.1 reaches a loopback server with `Host: attacker.example`,
// and a browser adds its own Origin. Both are checked before anything else.

export type SurfaceCheck = { ok: true } | { ok: false; status: 403; message: string };

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * Whether a request's Host and Origin may reach a route. Host names the
 * operator declared (allowedHosts, GSC_PUBLIC_URL, a specific bind address)
 * and loopback names always pass; once names are declared, nothing else does.
 * Without declared names, any Host passes only where the route demands a
 * credential a rebinding page cannot have (a bearer token, an OAuth token,
 * the host application's own authentication) and the server is not bound to
 * loopback — behind a proxy, that is, where GSC_PUBLIC_URL should name it.
 */
export function checkSurface(
  req: IncomingMessage,
  config: Config,
  mount: HttpMount,
  credentialRequired: boolean,
  /** `any`: a public, read-only document every page may read (CORS `*`); its Host is checked all the same. */
  origins: 'checked' | 'any' = 'checked',
): SurfaceCheck {
  const hostHeader = req.headers.host;
  const hostname = hostnameOf(hostHeader);
  if (hostname === undefined) {
    return refuse(`Invalid Host: ${shown(hostHeader)}`);
  }
  const declared = declaredHosts(config, mount);
  const known = isLoopback(hostname) || declared.has(hostname);
  // A standalone server bound to loopback serves local clients only, credential or not.
  const strict = declared.size > 0 || !credentialRequired || (mount.standalone && isLoopback(config.http.host));
  if (!known && strict) {
    return refuse(
      `Invalid Host: ${shown(hostHeader)}; ${mount.standalone ? 'set GSC_PUBLIC_URL' : 'add it to the allowedHosts option'} to serve it`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origins === 'checked' && !originAllowed(origin, config, declared)) {
    return refuse(`Invalid Origin: ${shown(origin)}; add it to GSC_ALLOWED_ORIGINS to allow it`);
  }
  return { ok: true };
}

// Per config and mount, both fixed for an app's life: checkSurface runs on every request.
const declaredByConfig = new WeakMap<Config, WeakMap<HttpMount, ReadonlySet<string>>>();

function declaredHosts(config: Config, mount: HttpMount): ReadonlySet<string> {
  let byMount = declaredByConfig.get(config);
  if (!byMount) {
    declaredByConfig.set(config, (byMount = new WeakMap()));
  }
  let hosts = byMount.get(mount);
  if (!hosts) {
    byMount.set(mount, (hosts = namedHosts(config, mount)));
  }
  return hosts;
}

function namedHosts(config: Config, mount: HttpMount): Set<string> {
  const hosts = new Set(mount.allowedHosts);
  if (config.http.publicUrl) {
    hosts.add(new URL(config.http.publicUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase());
  }
  const bind = config.http.host.toLowerCase();
  if (mount.standalone && !WILDCARD.has(bind) && !isLoopback(bind)) {
    hosts.add(bind);
  }
  return hosts;
}

function originAllowed(origin: string, config: Config, declared: ReadonlySet<string>): boolean {
  if (config.http.allowedOrigins.includes(origin)) {
    return true;
  }
  if (!URL.canParse(origin)) {
    return false;
  }
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return false;
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  // A page served from the server's own declared names is not cross-origin.
  return isLoopback(hostname) || declared.has(hostname);
}

/** The host name of a Host header (port and IPv6 brackets removed), or undefined when it is not one. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host) {
    return undefined;
  }
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host.trim());
  return match ? match[1].replace(/^\[|\]$/g, '').toLowerCase() : undefined;
}

function shown(value: string | undefined): string {
  if (value === undefined) {
    return '(none)';
  }
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function refuse(message: string): SurfaceCheck {
  return { ok: false, status: 403, message };
}
