import { describe, expect, it } from '@jest/globals';
import {
  authFailure,
  bearerChallenge,
  bearerTokenOf,
  endpointUrl,
  protectedResourceMetadata,
  protectedResourcePaths,
  resourceMetadataUrl,
  wellKnownUrlFor,
} from './protected-resource.js';

const ISSUER = 'https://login.corp.example/';
const base = { issuer: ISSUER, audience: 'https://mcp.corp.example/mcp' };
const ORIGIN = 'http://127.0.0.1:3000';

describe('protected-resource metadata (RFC 9728)', () => {
  it('names GSC_PUBLIC_URL + /mcp as the resource and the issuer as the only authorization server', () => {
    expect(protectedResourceMetadata({ ...base, publicUrl: 'https://gsc.corp.example', scopes: ['gsc'] }, ORIGIN)).toEqual({
      resource: 'https://gsc.corp.example/mcp',
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['gsc'],
    });
  });

  it('keeps a public URL path and the mount path: behind a proxy, under a global prefix', () => {
    const settings = { ...base, publicUrl: 'https://corp.example/tools/gsc/', mcpPath: '/api/mcp' };
    expect(protectedResourceMetadata(settings, ORIGIN).resource).toBe('https://corp.example/tools/gsc/api/mcp');
    expect(resourceMetadataUrl(settings, ORIGIN)).toBe('https://corp.example/.well-known/oauth-protected-resource/tools/gsc/api/mcp');
  });

  it('falls back to the audience as resource when there is no public URL', () => {
    expect(protectedResourceMetadata(base, ORIGIN).resource).toBe('https://mcp.corp.example/mcp');
  });

  it('uses the request URL as resource when the audience is not a URL (RFC 9728 §2: resource is a URL)', () => {
    expect(protectedResourceMetadata({ ...base, audience: 'api://gsc-mcp' }, 'https://mcp.corp.example').resource).toBe(
      'https://mcp.corp.example/mcp',
    );
  });

  it('omits scopes_supported when there are none (RFC 9728 §3.2: zero values MUST be omitted)', () => {
    const doc = protectedResourceMetadata({ ...base, scopes: [] }, ORIGIN);
    expect(doc).not.toHaveProperty('scopes_supported');
  });

  it('serves at the root and at the endpoint path inserted after the host', () => {
    expect(protectedResourcePaths()).toEqual(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']);
    expect(protectedResourcePaths('/api/mcp')).toEqual([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
    ]);
    expect(protectedResourcePaths('api/mcp/')).toEqual([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
    ]);
  });

  it.each([
    ['https://resource.example.com/resource1', 'https://resource.example.com/.well-known/oauth-protected-resource/resource1'],
    ['https://example.com/public/mcp', 'https://example.com/.well-known/oauth-protected-resource/public/mcp'],
    ['https://example.com/api/mcp/', 'https://example.com/.well-known/oauth-protected-resource/api/mcp'],
    ['https://example.com', 'https://example.com/.well-known/oauth-protected-resource'],
    ['https://example.com/', 'https://example.com/.well-known/oauth-protected-resource'],
    ['https://example.com:8443/mcp', 'https://example.com:8443/.well-known/oauth-protected-resource/mcp'],
  ])('RFC 9728 §3.1 insertion: %s → %s', (resource, url) => {
    expect(wellKnownUrlFor(resource)).toBe(url);
  });

  it('locates the document where this server serves it, from the request when there is no public URL', () => {
    expect(resourceMetadataUrl(base, 'http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp');
    expect(endpointUrl({ ...base, mcpPath: '/' }, 'https://mcp.corp.example')).toBe('https://mcp.corp.example');
  });
});

describe('the 401 challenge', () => {
  const metadata = 'https://gsc.corp.example/.well-known/oauth-protected-resource/mcp';

  it('is a bare resource_metadata challenge when no token was sent', () => {
    expect(bearerChallenge({ resourceMetadataUrl: metadata })).toBe(`Bearer resource_metadata="${metadata}"`);
  });

  it('adds error="invalid_token" and the description when a token was refused', () => {
    expect(bearerChallenge({ resourceMetadataUrl: metadata, error: 'invalid_token', description: 'the access token has expired' })).toBe(
      `Bearer error="invalid_token", error_description="the access token has expired", resource_metadata="${metadata}"`,
    );
  });

  it('keeps every parameter a valid quoted-string, whatever the description or URL carry', () => {
    const header = bearerChallenge({
      resourceMetadataUrl: 'https://h.example/.well-known/oauth-protected-resource/m"cp',
      error: 'invalid_token',
      description: 'bad "quote" \\ and\r\nSet-Cookie: x=1',
      scopes: ['gsc.read', 'a"b'],
    });
    expect(header).not.toMatch(/[\r\n]/);
    // Between the quotes of each parameter: no quote and no backslash.
    expect(header).toMatch(/^Bearer error="invalid_token", error_description="[^"\\]*", scope="[^"\\]*", resource_metadata="[^"\\]*"$/);
    expect(header).toContain('resource_metadata="https://h.example/.well-known/oauth-protected-resource/m%22cp"');
  });

  it('authFailure: 401 bare, 401 invalid_token, 503 when the issuer failed', () => {
    const settings = { ...base, publicUrl: 'https://gsc.corp.example', scopes: ['gsc'] };
    expect(authFailure(settings, ORIGIN)).toEqual({
      status: 401,
      headers: { 'WWW-Authenticate': `Bearer scope="gsc", resource_metadata="${metadata}"` },
    });
    expect(authFailure(settings, ORIGIN, { description: 'the access token has expired' }).headers['WWW-Authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="the access token has expired", scope="gsc", resource_metadata=/,
    );
    expect(authFailure(settings, ORIGIN, { description: 'keys', temporary: true })).toEqual({
      status: 503,
      headers: { 'Retry-After': '30' },
    });
  });
});

describe('bearerTokenOf', () => {
  it.each([
    [undefined, { missing: true }],
    ['', { missing: true }],
    ['Bearer abc.def.ghi', { token: 'abc.def.ghi' }],
    ['bearer abc.def.ghi', { token: 'abc.def.ghi' }],
    ['Basic dXNlcjpwYXNz', { malformed: true }],
    ['Bearer ', { malformed: true }],
    ['Bearer a b', { malformed: true }],
    [['Bearer a', 'Bearer b'], { malformed: true }],
  ])('%j → %j', (header, result) => {
    expect(bearerTokenOf(header)).toEqual(result);
  });
});
