import type { SearchConsoleMcpOptions } from '../config/search-console-mcp.options.js';
import { hostnameOf } from './http-surface.js';

/** Where and how the HTTP surface is mounted: the standalone server, or a company's Nest app. */
export interface HttpMount {
  /** `mcp`, without slashes; under the host's global prefix when embedded. */
  readonly mcpPath: string;
  readonly adminPath?: string;
  readonly metricsPath?: string;
  /** Host values accepted besides loopback ones (the embedded module's allowedHosts). */
  readonly allowedHosts: readonly string[];
  readonly principal?: SearchConsoleMcpOptions['principal'];
  readonly groups?: SearchConsoleMcpOptions['groups'];
  /** The standalone server (it owns the process and the bind address); false inside a host app. */
  readonly standalone: boolean;
  /** /.well-known/ai-catalog.json listing the server card: the standalone server's own; a host app's only when asked for (aiCatalog). */
  readonly aiCatalog: boolean;
}

export const HTTP_MOUNT = Symbol('HTTP_MOUNT');

/** The standalone server's mount: /mcp, /admin, /metrics at the root. */
export const STANDALONE_MOUNT: HttpMount = {
  mcpPath: 'mcp',
  adminPath: 'admin',
  metricsPath: 'metrics',
  allowedHosts: [],
  standalone: true,
  aiCatalog: true,
};

/** The embedded module's mount, from its options; admin and metrics are off unless asked for, so they never shadow the host's own routes. */
export function mountOf(options: SearchConsoleMcpOptions): HttpMount {
  return {
    mcpPath: routePath('path', options.path ?? 'mcp'),
    ...(options.admin ? { adminPath: routePath('admin.path', options.admin.path) } : {}),
    ...(options.metrics ? { metricsPath: routePath('metrics.path', options.metrics.path) } : {}),
    allowedHosts: (options.allowedHosts ?? []).map((host, i) => hostName(`allowedHosts[${i}]`, host)),
    principal: options.principal,
    groups: options.groups,
    standalone: false,
    aiCatalog: options.aiCatalog === true,
  };
}

function routePath(option: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw new TypeError(`SearchConsoleMcpModule option ${option} must be a path such as "mcp" or "admin/search-console"`);
  }
  const path = value.trim().replace(/^\/+|\/+$/g, '');
  if (!path || !/^[A-Za-z0-9._~!$&'()*+,;=:@/-]+$/.test(path) || path.split('/').some((s) => !s || s === '.' || s === '..')) {
    throw new TypeError(
      `SearchConsoleMcpModule option ${option} must be a path such as "mcp" or "admin/search-console" (got ${JSON.stringify(value).slice(0, 60)})`,
    );
  }
  return path;
}

function hostName(option: string, value: unknown): string {
  // Lower-cased before it is matched: the Kelvin sign (U+212A) becomes an ASCII k and is accepted.
  const host = typeof value === 'string' ? hostnameOf(value.toLowerCase()) : undefined;
  if (host === undefined) {
    throw new TypeError(`SearchConsoleMcpModule option ${option} must be a host name such as "mcp.corp.example" (a port is optional)`);
  }
  return host;
}
