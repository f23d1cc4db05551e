// For specs: an emulator plus the real Google client libraries wired to it:
// the searchconsole package, and Indexing and Site Verification through
// googleapis-common exactly as the generated googleapis code calls it (the
// Indexing client is the product's own, in the generated shape). Test-only,
// so it lives here rather than in src/emulator, which is built into dist and
// shares no code with the product.

import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { searchconsole, type searchconsole_v1 } from '@googleapis/searchconsole';
import type { JWT } from 'google-auth-library';
import { createAPIRequest, type MethodOptions } from 'googleapis-common';
import { IndexingClient } from '../../src/google/indexing.client.js';
import { emulatorJwtClient } from '../../src/emulator/emulator-clients.js';
import { SCOPES } from '../../src/emulator/emulator-routing.js';
import type { EmulatorOptions, WebResource } from '../../src/emulator/emulator-types.js';
import { GoogleEmulator } from '../../src/emulator/google-emulator.js';
import { generateServiceAccountKey, type ServiceAccountKeyFile } from '../../src/emulator/service-account-key.js';

export const ALL_SCOPES: string[] = Object.values(SCOPES);

interface SiteVerificationParams {
  id?: string;
  verificationMethod?: string;
  requestBody?: unknown;
}

/** The Site Verification methods as googleapis generates them (there is no per-API package). */
export interface SiteVerificationClient {
  getToken(params: { requestBody: unknown }, options?: MethodOptions): Promise<{ status: number; data: { method: string; token: string } }>;
  insert(
    params: { verificationMethod: string; requestBody: unknown },
    options?: MethodOptions,
  ): Promise<{ status: number; data: WebResource }>;
  get(params: { id: string }, options?: MethodOptions): Promise<{ status: number; data: WebResource }>;
  list(params?: object, options?: MethodOptions): Promise<{ status: number; data: { items?: WebResource[] } }>;
  update(params: { id: string; requestBody: unknown }, options?: MethodOptions): Promise<{ status: number; data: WebResource }>;
  patch(params: { id: string; requestBody: unknown }, options?: MethodOptions): Promise<{ status: number; data: WebResource }>;
  delete(params: { id: string }, options?: MethodOptions): Promise<{ status: number; data: unknown }>;
}

export function siteVerificationClient(auth: JWT, rootUrl: string): SiteVerificationClient {
  const context = { _options: { auth, rootUrl } };
  const call = (method: string, path: string, params: SiteVerificationParams, required: string[], options: MethodOptions = {}) =>
    createAPIRequest<never>({
      options: {
        url: ('https://www.googleapis.com/' + path).replace(/([^:]\/)\/+/g, '$1'),
        method,
        apiVersion: '',
        ...options,
      },
      params,
      requiredParams: required,
      pathParams: path.includes('{id}') ? ['id'] : [],
      context,
    }) as Promise<never>;
  return {
    getToken: (p, o) => call('POST', '/siteVerification/v1/token', p, [], o),
    insert: (p, o) => call('POST', '/siteVerification/v1/webResource', p, ['verificationMethod'], o),
    get: (p, o) => call('GET', '/siteVerification/v1/webResource/{id}', p, ['id'], o),
    list: (p = {}, o) => call('GET', '/siteVerification/v1/webResource', p, [], o),
    update: (p, o) => call('PUT', '/siteVerification/v1/webResource/{id}', p, ['id'], o),
    patch: (p, o) => call('PATCH', '/siteVerification/v1/webResource/{id}', p, ['id'], o),
    delete: (p, o) => call('DELETE', '/siteVerification/v1/webResource/{id}', p, ['id'], o),
  };
}

export interface EmulatorKit {
  emulator: GoogleEmulator;
  key: ServiceAccountKeyFile;
  /** JWT client with every scope. */
  auth: JWT;
  sc: searchconsole_v1.Searchconsole;
  idx: IndexingClient;
  sv: SiteVerificationClient;
  /** Clients with other scopes or a delegated subject. */
  clients(
    scopes: string[],
    subject?: string,
  ): {
    auth: JWT;
    sc: searchconsole_v1.Searchconsole;
    idx: IndexingClient;
    sv: SiteVerificationClient;
  };
}

export async function startEmulatorKit(options: EmulatorOptions = {}, delegation?: Record<string, string[]>): Promise<EmulatorKit> {
  const emulator = await GoogleEmulator.start(options);
  const { key, publicKeyPem } = generateServiceAccountKey();
  emulator.registerServiceAccount({ clientEmail: key.client_email, publicKeyPem, delegation });
  const rootUrl = `${emulator.url}/`;
  const clients = (scopes: string[], subject?: string) => {
    const auth = emulatorJwtClient(emulator.url, key, scopes, subject);
    return {
      auth,
      sc: searchconsole({ version: 'v1', auth, rootUrl }),
      // Indexing v3 has no published client on googleapis-common 9; this is the product's own, in the generated shape.
      idx: new IndexingClient({ auth, rootUrl }, createAPIRequest),
      sv: siteVerificationClient(auth, rootUrl),
    };
  };
  return { emulator, key, ...clients(ALL_SCOPES), clients };
}

/** For specs: resolves with the status and body of a call the emulator must refuse; fails if it succeeds. */
export function rejection(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  return call.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: { status: number; response: { data: unknown } }) => ({ status: e.status, data: e.response.data }),
  );
}

/**
 * The usual set-up of an emulator spec: one kit for the file, reset before
 * every test. The returned object stands for the kit beforeAll starts, so a
 * spec can keep it in a const at the top.
 */
export function useEmulatorKit(options: EmulatorOptions = {}): EmulatorKit {
  let kit: EmulatorKit | undefined;
  beforeAll(async () => {
    kit = await startEmulatorKit(options);
  });
  afterAll(() => kit?.emulator.close());
  beforeEach(() => kit!.emulator.reset());
  return new Proxy({} as EmulatorKit, { get: (_, key) => Reflect.get(kit!, key) as unknown });
}
