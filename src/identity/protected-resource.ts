// OAuth 2.0 Protected Resource Metadata (RFC 9728) and the Bearer challenge
// (RFC 6750 §3) for the MCP endpoint, as pure functions: the HTTP layer
// decides where to mount them and only passes in what it knows of the request.

/** The well-known URI suffix registered by RFC 9728 §3. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceSettings {
  /** GSC_AUTH_ISSUER. */
  readonly issuer: string;
  /** GSC_AUTH_AUDIENCE. */
  readonly audience: string;
  /** GSC_PUBLIC_URL: the server's public base URL, possibly with a path (behind a proxy). */
  readonly publicUrl?: string;
  /** The MCP endpoint's path as mounted, global prefix included: `/mcp` (default), `/api/mcp`. */
  readonly mcpPath?: string;
  /** `scopes_supported`; omitted from the document when empty (RFC 9728 §3.2). */
  readonly scopes?: readonly string[];
}

export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly scopes_supported?: readonly string[];
}

/**
 * The two paths the document is served at: the root one, and the one for the
 * endpoint's path. RFC 9728 §3.1 inserts the well-known string between the host
 * and the resource's path, so an endpoint at /api/mcp has its document at
 * /.well-known/oauth-protected-resource/api/mcp (at the host's root, not under
 * /api) — the form the MCP authorization specification (2025-11-25, "Protected
 * Resource Metadata Discovery Requirements") shows for /public/mcp.
 */
export function protectedResourcePaths(mcpPath = '/mcp'): [root: string, endpoint: string] {
  return [PROTECTED_RESOURCE_WELL_KNOWN, `${PROTECTED_RESOURCE_WELL_KNOWN}${endpointPath(mcpPath)}`];
}

/**
 * The endpoint's public URL: GSC_PUBLIC_URL + the MCP path when the public URL
 * is known, else what the request came in on (`requestOrigin`, e.g.
 * `https://mcp.corp.example`, from a Host the HTTP layer has already validated).
 */
export function endpointUrl(settings: ProtectedResourceSettings, requestOrigin: string): string {
  const base = settings.publicUrl ? new URL(settings.publicUrl) : new URL(requestOrigin);
  const path = `${settings.publicUrl ? base.pathname.replace(/\/+$/, '') : ''}${endpointPath(settings.mcpPath)}`;
  // The MCP specification prefers the form without a trailing slash for a server at the root.
  return path ? new URL(`${base.origin}${path}`).href : base.origin;
}

/**
 * `resource`: GSC_PUBLIC_URL + the MCP path when set (§8b), else the audience
 * when it is a URL (the MCP specification has the canonical server URI serve as
 * both, RFC 8707 §2), else the URL the request came in on — RFC 9728 §2 makes
 * `resource` a URL, and an audience such as `api://gsc` is not one.
 */
export function resourceIdentifier(settings: ProtectedResourceSettings, requestOrigin: string): string {
  if (settings.publicUrl) {
    return endpointUrl(settings, requestOrigin);
  }
  if (isResourceUrl(settings.audience)) {
    return settings.audience;
  }
  return endpointUrl(settings, requestOrigin);
}

export function protectedResourceMetadata(settings: ProtectedResourceSettings, requestOrigin: string): ProtectedResourceMetadata {
  const scopes = [...new Set(settings.scopes ?? [])];
  return {
    resource: resourceIdentifier(settings, requestOrigin),
    authorization_servers: [settings.issuer],
    bearer_methods_supported: ['header'],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
  };
}

/**
 * Where the document for this endpoint is: RFC 9728 §3.1 — "If the resource
 * identifier value contains a path or query component, any terminating slash
 * (/) following the host component MUST be removed before inserting
 * /.well-known/ and the well-known URI path suffix between the host component
 * and the path". Built from where the endpoint is served (not from the audience,
 * which may name another host or no host at all), so it always points at a
 * document this server serves.
 */
export function resourceMetadataUrl(settings: ProtectedResourceSettings, requestOrigin: string): string {
  return wellKnownUrlFor(endpointUrl(settings, requestOrigin));
}

/** RFC 9728 §3.1 insertion for any resource URL: https://h/a/b → https://h/.well-known/oauth-protected-resource/a/b. */
export function wellKnownUrlFor(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}${url.search}`;
}

export interface ChallengeOptions {
  readonly resourceMetadataUrl: string;
  /** Set when a token was sent and refused (RFC 6750 §3.1): `invalid_token`; `invalid_request` for a malformed header. */
  readonly error?: 'invalid_token' | 'invalid_request';
  readonly description?: string;
  /** Scopes the request needs (the MCP specification SHOULDs one on the challenge). */
  readonly scopes?: readonly string[];
}

/**
 * The WWW-Authenticate value of a 401: `Bearer resource_metadata="…"`, and,
 * when a token was sent, `error="invalid_token", error_description="…"`
 * (RFC 6750 §3; RFC 9728 §5.1). Values are quoted-strings limited to the
 * characters RFC 6750 §3 allows, so nothing taken from a request can break out
 * of the header.
 */
export function bearerChallenge(options: ChallengeOptions): string {
  const params: string[] = [];
  if (options.error) {
    params.push(`error="${options.error}"`);
  }
  if (options.error && options.description) {
    params.push(`error_description="${quotable(options.description)}"`);
  }
  const scopes = (options.scopes ?? []).map(quotable).filter(Boolean);
  if (scopes.length > 0) {
    params.push(`scope="${scopes.join(' ')}"`);
  }
  params.push(`resource_metadata="${quotable(new URL(options.resourceMetadataUrl).href)}"`);
  return `Bearer ${params.join(', ')}`;
}

export interface Refusal {
  /** A sentence without secrets, e.g. AccessTokenError.description. */
  readonly description: string;
  /** The issuer, not the token, failed (AccessTokenError.temporary). */
  readonly temporary?: boolean;
}

/**
 * Status and headers for a request to the MCP endpoint that cannot go on:
 * no token → 401 with the bare challenge (RFC 6750 §3.1: no error code when
 * nothing was sent); a refused token → 401 invalid_token; keys that cannot be
 * fetched → 503 with Retry-After, because a 401 would send the client to
 * re-authorise for a fault that is not its own, again and again.
 */
export function authFailure(
  settings: ProtectedResourceSettings,
  requestOrigin: string,
  refusal?: Refusal,
): { status: 401 | 503; headers: Record<string, string> } {
  if (refusal?.temporary) {
    return { status: 503, headers: { 'Retry-After': '30' } };
  }
  const challenge = bearerChallenge({
    resourceMetadataUrl: resourceMetadataUrl(settings, requestOrigin),
    scopes: settings.scopes,
    ...(refusal ? { error: 'invalid_token' as const, description: refusal.description } : {}),
  });
  return { status: 401, headers: { 'WWW-Authenticate': challenge } };
}

/** The `Authorization: Bearer <token>` value, or why there is none. Never reads the query string (MCP: "MUST NOT"). */
export function bearerTokenOf(
  authorization: string | readonly string[] | undefined,
): { token: string } | { missing: true } | { malformed: true } {
  if (authorization === undefined || authorization === '') {
    return { missing: true };
  }
  if (typeof authorization !== 'string') {
    return { malformed: true };
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  return match ? { token: match[1] } : { malformed: true };
}

function endpointPath(mcpPath = '/mcp'): string {
  const trimmed = mcpPath.trim().replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : '';
}

function isResourceUrl(value: string): boolean {
  if (!URL.canParse(value)) {
    return false;
  }
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.hash && !!url.hostname;
}

// RFC 6750 §3: error_description and scope use %x20-21 / %x23-5B / %x5D-7E only.
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '');
}
