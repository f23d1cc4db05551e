import type { IncomingMessage } from 'node:http';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';

/**
 * The HTTP request as the host application's own guards and middleware left it
 * (Express's request, with e.g. `req.user` set). What they attached is the
 * host's to type, so it reads as `any`: `principal: (req) => req.user?.email`
 * type-checks as written, and a host may annotate `req` with its own type.
 */
export interface HostRequest extends IncomingMessage {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the host's own request properties, typed by the host
  readonly [property: string]: any;
}

/**
 * Options of SearchConsoleMcpModule (PRODUCT §8a). Everything is optional: the
 * defaults mount `/mcp` under the host's global prefix, with no admin or
 * metrics routes, and every request served as one local principal.
 */
export interface SearchConsoleMcpOptions {
  /**
   * The configuration table's variables by name (GSC_SERVICE_ACCOUNT_KEY_FILE,
   * GSC_ALLOWED_SITES, GSC_READ_ONLY, …): lists as arrays or comma strings,
   * booleans as booleans or strings. Validated by the same rules as the
   * environment; process.env is never read unless you pass it.
   */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Where the MCP endpoint is mounted, under the host's global prefix. Default `mcp`. */
  readonly path?: string;
  /** The host's identity for this request (e.g. `req.user?.email`); bound into approvals, tokens, sessions, exports and the audit trail. */
  // Method syntax on purpose: a host may annotate `req` with its own request type.
  principal?(this: void, req: HostRequest): string | undefined | null | Promise<string | undefined | null>;
  /** The caller's groups, for policy rules. */
  groups?(this: void, req: HostRequest): readonly string[] | undefined | Promise<readonly string[] | undefined>;
  /** Per-principal rules: the same object GSC_POLICY_FILE holds. */
  readonly policy?: unknown;
  /** Host values accepted on the mounted routes besides loopback ones (DNS-rebinding protection). */
  readonly allowedHosts?: readonly string[];
  /** The operations endpoints (health, ready, tools, config, audit), or false (the default). */
  readonly admin?: { readonly path: string } | false;
  /** Prometheus metrics, or false (the default). */
  readonly metrics?: { readonly path: string } | false;
  /**
   * Serve /.well-known/ai-catalog.json (under the global prefix unless you exclude it) listing this server's card,
   * or false (the default): the site's catalog is usually the host's own, which can list `<path>/server-card`.
   * The card itself (experimental, SEP-2127) is always served at `<path>/server-card`.
   */
  readonly aiCatalog?: boolean;
}

export interface SearchConsoleMcpAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: (InjectionToken | OptionalFactoryDependency)[];
  readonly useFactory: (...args: never[]) => SearchConsoleMcpOptions | Promise<SearchConsoleMcpOptions>;
}
