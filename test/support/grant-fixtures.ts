import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredGrant } from '../../src/accounts/grant-store.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { ConnectedGrant } from '../../src/google/connected-accounts.js';

/**
 * The one builder of grant fixtures for specs: a grant as the grant store
 * keeps it (with its refresh token) or as the rest of the code sees it, each
 * field overridable. Defaults are an account that sees Search Console read-only.
 */
export const FIXTURE_CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
export const WEBMASTERS_READONLY = 'https://www.googleapis.com/auth/webmasters.readonly';
export const FIXTURE_REFRESH_TOKEN = '1//0refresh-token-of-alice-must-stay-secret';

export function connectedGrant(overrides: Partial<ConnectedGrant> = {}): ConnectedGrant {
  const googleSub = overrides.googleSub ?? '1';
  return {
    principal: 'ann@corp.example',
    googleSub,
    googleEmail: `${googleSub}@example.com`,
    scopes: ['openid', WEBMASTERS_READONLY],
    connectedAt: '2026-12-01T10:00:00.000Z',
    ...overrides,
  };
}

export function storedGrant(overrides: Partial<StoredGrant> = {}): StoredGrant {
  return { ...connectedGrant(overrides), refreshToken: FIXTURE_REFRESH_TOKEN, ...overrides };
}

/** A connected-mode configuration over its own state folder (and Redis when given), with grant keys when given. */
export function connectedConfig(options: { dir?: string; redis?: string; keys?: string; env?: Record<string, string> } = {}): Config {
  return loadConfig({
    CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
    GSC_STATE_DIR: options.dir ?? mkdtempSync(join(tmpdir(), 'gsc-grants-')),
    ...(options.redis ? { GSC_REDIS_URL: options.redis } : {}),
    GSC_GOOGLE_OAUTH_CLIENT_ID: FIXTURE_CLIENT_ID,
    GSC_GOOGLE_OAUTH_CLIENT_SECRET: 'GOCSPX-test',
    ...(options.keys ? { GSC_GRANT_ENCRYPTION_KEYS: options.keys } : {}),
    ...options.env,
  });
}
