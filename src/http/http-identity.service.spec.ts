import { describe, expect, it } from '@jest/globals';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock } from '../common/clock.js';
import { loadConfig } from '../config/config.js';
import { callerOf } from '../identity/caller.js';
import { HttpIdentity, type Refused, tokenPrincipal } from './http-identity.service.js';
import { type HttpMount, STANDALONE_MOUNT } from './http-mount.js';

// Who is calling over HTTP, decided once per request (PRODUCT.md §8b), for each of the four modes.

const TOKEN = 'a-shared-token-of-at-least-32-characters-0123';
const env = (extra: Record<string, string> = {}) => ({
  CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
  HOME: '/home/someone',
  ...extra,
});
const identity = (extra: Record<string, string> = {}, mount: Partial<HttpMount> = {}) =>
  new HttpIdentity(loadConfig(env(extra)), { ...STANDALONE_MOUNT, ...mount }, new Clock());
const request = (headers: Record<string, string> = {}): IncomingMessage =>
  ({ headers: { host: '127.0.0.1:3000', ...headers }, socket: {} }) as unknown as IncomingMessage;

function accepted(answer: AuthInfo | Refused): AuthInfo {
  if ('status' in answer) {
    throw new Error(`refused: ${answer.message}`);
  }
  return answer;
}
function refused(answer: AuthInfo | Refused): Refused {
  if (!('status' in answer)) {
    throw new Error(`accepted as ${answer.clientId}`);
  }
  return answer;
}

describe('HttpIdentity', () => {
  it('on loopback with no credential configured: everyone is local, and no credential is demanded', async () => {
    const local = identity();
    expect(local.mode).toBe('local');
    expect(local.credentialRequired).toBe(false);
    expect(callerOf(accepted(await local.identify(request(), 'mcp')))).toEqual({ principal: 'local', groups: [] });
  });

  describe('the shared token (GSC_HTTP_TOKEN)', () => {
    const shared = identity({ GSC_HTTP_TOKEN: TOKEN });

    it('refuses a request without it, or with another, with a Bearer challenge', async () => {
      expect(shared.mode).toBe('token');
      expect(shared.credentialRequired).toBe(true);
      const tries: Record<string, string>[] = [
        {},
        { authorization: 'Bearer another-token-of-at-least-32-characters-xyz' },
        { authorization: TOKEN },
      ];
      for (const headers of tries) {
        const answer = refused(await shared.identify(request(headers), 'mcp'));
        expect(answer.status).toBe(401);
        expect(answer.message).toBe('Missing or invalid bearer token (GSC_HTTP_TOKEN)');
        expect(answer.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="google-search-console-mcp"' });
      }
    });

    it('names the holder after the token, never with it, and another token is another person', async () => {
      const info = accepted(await shared.identify(request({ authorization: `Bearer ${TOKEN}` }), 'mcp'));
      expect(callerOf(info).principal).toBe(tokenPrincipal(TOKEN));
      expect(tokenPrincipal(TOKEN)).toMatch(/^token:[0-9a-f]{16}$/);
      expect(JSON.stringify(info)).not.toContain(TOKEN);
      expect(tokenPrincipal(`${TOKEN}x`)).not.toBe(tokenPrincipal(TOKEN));
    });
  });

  describe('the host application (the embedded module’s principal option)', () => {
    it('takes its principal in the canonical spelling and its string groups, over any token configured', async () => {
      const host = identity(
        { GSC_HTTP_TOKEN: TOKEN },
        { principal: () => '  Bob@Corp.Example ', groups: () => ['seo', 7 as unknown as string, 'web'] },
      );
      expect(host.mode).toBe('host');
      expect(callerOf(accepted(await host.identify(request(), 'mcp')))).toEqual({ principal: 'bob@corp.example', groups: ['seo', 'web'] });
    });

    it('refuses a request the host did not identify', async () => {
      const answer = refused(await identity({}, { principal: () => Promise.resolve('  ') }).identify(request(), 'mcp'));
      expect(answer.status).toBe(401);
      expect(answer.message).toMatch(/^The host application did not identify the caller/);
    });

    it('refuses a look-alike spelling rather than folding it onto a principal, and says what to record', async () => {
      const answer = refused(await identity({}, { principal: () => 'bob@corp.\u212Aexample' }).identify(request(), 'mcp'));
      expect(answer.status).toBe(401);
      expect(answer.message).toMatch(/Unicode normalisation/);
      expect(answer.refusedPrincipal).toEqual({ reason: 'principal_not_normalized', principal: 'bob@corp.\\u{212A}example' });
    });
  });

  describe('OAuth access tokens (GSC_AUTH_ISSUER)', () => {
    const oauth = identity({
      GSC_AUTH_ISSUER: 'https://login.corp.example/realms/staff',
      GSC_AUTH_AUDIENCE: 'https://mcp.corp.example/mcp',
    });

    it('asks for a token with a challenge naming the protected-resource metadata of this origin', async () => {
      expect(oauth.mode).toBe('oauth');
      const answer = refused(await oauth.identify(request(), 'mcp'));
      expect(answer.status).toBe(401);
      expect(answer.message).toBe('Authentication required: send an OAuth access token as Authorization: Bearer <token>');
      expect(answer.headers?.['WWW-Authenticate']).toContain(
        'resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"',
      );
    });

    it('refuses an Authorization header that is not a Bearer token as invalid_token', async () => {
      const answer = refused(await oauth.identify(request({ authorization: 'Basic dXNlcjpwYXNz' }), 'mcp'));
      expect(answer.status).toBe(401);
      expect(answer.headers?.['WWW-Authenticate']).toContain('error="invalid_token"');
    });

    it('describes the protected resource it guards', () => {
      expect(oauth.protectedResource('mcp')).toEqual({
        issuer: 'https://login.corp.example/realms/staff',
        audience: 'https://mcp.corp.example/mcp',
        publicUrl: undefined,
        mcpPath: 'mcp',
      });
      expect(identity().protectedResource('mcp')).toBeUndefined();
    });
  });
});
