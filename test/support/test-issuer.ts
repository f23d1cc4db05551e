import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';

// A real OAuth 2.1 / OpenID Connect issuer for tests: it serves its own
// metadata and JWKS over HTTP on 127.0.0.1 and signs tokens with keys made at
// test time (nothing is committed). It can also rotate keys, sign with a key
// it does not publish, and forge the classic bad tokens. For the connect page
// (PRODUCT.md §8d) it is also an OpenID provider a browser logs in to: an
// authorization endpoint with a login form (type a name, Sign in or Cancel; no password,
// it is a test IdP) and the authorization_code grant with PKCE S256 at the
// token endpoint, answering an ID token (aud = the client, the nonce echoed).

export type SigningAlg = 'RS256' | 'ES256' | 'EdDSA';

/** Where metadata is served for an issuer with path P: RFC 8414 insertion, OIDC insertion, OIDC appending (P/.well-known/…). */
export type MetadataLocation = 'oauth-inserted' | 'openid-inserted' | 'openid-appended';

export interface TestIssuerOptions {
  /** Issuer path, e.g. `/tenant1`; none by default. */
  readonly path?: string;
  /** Issuer ends in `/` (as Auth0's does). */
  readonly trailingSlash?: boolean;
  readonly alg?: SigningAlg;
  readonly metadata?: readonly MetadataLocation[];
  /** Default `aud` of minted tokens. */
  readonly audience?: string;
  readonly clock?: { now(): Date };
}

/** Claims to put in a token; a claim given as undefined is left out. `alg`, `kid` and `signWith` shape the signature. */
export interface MintOptions {
  readonly alg?: string;
  readonly kid?: string | null;
  /** `current` (default), `previous` (the key before the last rotation, published or not), or `foreign` (never published). */
  readonly signWith?: 'current' | 'previous' | 'foreign';
  readonly [claim: string]: unknown;
}

interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export class TestIssuer {
  /** Every path requested, in order (metadata, JWKS, 404s). */
  readonly requests: string[] = [];
  /** Answer the JWKS with this status (503 for an outage). */
  jwksStatus = 200;
  /** Accept connections but never answer: a hung issuer. */
  hang = false;
  /** What the metadata says `issuer` is (a mix-up test), and where it says the keys are. */
  advertisedIssuer: string | undefined;
  advertisedJwksUri: string | undefined;
  /** Every token request the token endpoint answered: the client and the form it sent (RFC 8707 `resource` included). */
  readonly tokenRequests: { clientId: string; form: Record<string, string> }[] = [];

  /** Every authorization request the login page was shown for (its query). */
  readonly authorizeRequests: Record<string, string>[] = [];
  /** Claims left out of ID tokens (e.g. `email`, as some IdPs do): the client must ask userinfo for them. */
  readonly idTokenOmits = new Set<string>();
  /** Extra ID-token claims per person logged in (e.g. `{ email_verified: false }`), by the name typed. */
  readonly loginClaims = new Map<string, Record<string, unknown>>();

  private readonly clients = new Map<string, { secret: string; claims: Record<string, unknown>; redirectUris?: readonly string[] }>();
  private readonly codes = new Map<
    string,
    { clientId: string; redirectUri: string; challenge: string; nonce?: string; user: string; scope: string; used: boolean }
  >();

  private readonly published: SigningKey[] = [];
  private previousKey: SigningKey | undefined;
  private readonly hung = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    readonly issuer: string,
    private readonly path: string,
    private readonly options: TestIssuerOptions,
    private readonly foreignKey: SigningKey,
  ) {}

  static async start(options: TestIssuerOptions = {}): Promise<TestIssuer> {
    const alg = options.alg ?? 'RS256';
    const path = (options.path ?? '').replace(/\/$/, '');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const issuerUrl = `${origin}${path}${options.trailingSlash ? '/' : ''}`;
    const issuer = new TestIssuer(server, origin, issuerUrl, path, options, await makeKey(alg));
    issuer.published.push(await makeKey(alg));
    server.on('request', (req, res) => issuer.handle(req, res));
    return issuer;
  }

  get jwksUrl(): string {
    return `${this.origin}${this.path}/jwks`;
  }

  get kid(): string {
    return this.current.kid;
  }

  get alg(): SigningAlg {
    return this.current.alg;
  }

  get tokenEndpoint(): string {
    return `${this.origin}${this.path}/token`;
  }

  /**
   * A confidential client for the client_credentials grant (client_secret_basic):
   * the tokens it gets carry these claims (e.g. the person's `email` and `groups`),
   * and `aud` is the RFC 8707 `resource` it asked for, as an identity provider with
   * resource indicators does.
   */
  registerClient(clientId: string, secret: string, claims: Record<string, unknown>): void {
    this.clients.set(clientId, { secret, claims });
  }

  /**
   * A client a browser logs in with (authorization code + PKCE S256), redirected only to these URIs;
   * its ID tokens name the person typed on the login form (`email`, `email_verified`, `sub` = `sub-<email>`).
   */
  registerLoginClient(clientId: string, secret: string, redirectUris: readonly string[]): void {
    this.clients.set(clientId, { secret, claims: {}, redirectUris: [...redirectUris] });
  }

  get authorizationEndpoint(): string {
    return `${this.origin}${this.path}/authorize`;
  }

  /** How many requests went to paths starting with `prefix`. */
  count(prefix: string): number {
    return this.requests.filter((p) => p.startsWith(prefix)).length;
  }

  get jwksRequests(): number {
    return this.requests.filter((p) => p === `${this.path}/jwks`).length;
  }

  /** A new signing key with a new kid; the old one stays published unless keepOld is false. */
  async rotate({ keepOld = true }: { keepOld?: boolean } = {}): Promise<string> {
    this.previousKey = this.current;
    if (!keepOld) {
      this.published.splice(0, this.published.length);
    }
    this.published.push(await makeKey(this.options.alg ?? 'RS256'));
    return this.kid;
  }

  async mint(options: MintOptions = {}): Promise<string> {
    const { alg, kid, signWith = 'current', ...claims } = options;
    const key = signWith === 'foreign' ? this.foreignKey : signWith === 'previous' ? this.previousKey : this.current;
    if (!key) {
      throw new Error('no previous key: rotate() first');
    }
    const header: Record<string, unknown> = { alg: alg ?? key.alg, typ: 'at+jwt' };
    // A foreign key signs under the current kid by default: the verifier finds a key and the signature fails.
    const headerKid = kid === undefined ? (signWith === 'foreign' ? this.kid : key.kid) : kid;
    if (headerKid !== null) {
      header.kid = headerKid;
    }
    return new SignJWT(this.defaultClaims({ jti: randomUUID(), ...claims }))
      .setProtectedHeader(header as { alg: string })
      .sign(key.privateKey);
  }

  /** `alg: none`, no signature: the oldest forgery. */
  forgeNone(claims: Record<string, unknown> = {}): string {
    return `${b64(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64(JSON.stringify(this.defaultClaims(claims)))}.`;
  }

  /**
   * HS256 keyed with the issuer's public key (the PEM text or the JWK JSON):
   * a verifier that lets the token pick the algorithm and hands the published key
   * to HMAC would accept it.
   */
  async forgeHs256WithPublicKey(claims: Record<string, unknown> = {}, form: 'pem' | 'jwk' = 'pem'): Promise<string> {
    const secret = form === 'pem' ? await exportSPKI(this.current.publicKey) : JSON.stringify(this.current.publicJwk);
    const input = `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: this.kid }))}.${b64(JSON.stringify(this.defaultClaims(claims)))}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  }

  async close(): Promise<void> {
    for (const res of this.hung) {
      res.destroy();
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get current(): SigningKey {
    return this.published[this.published.length - 1];
  }

  private nowSeconds(): number {
    return Math.floor((this.options.clock?.now() ?? new Date()).getTime() / 1000);
  }

  private defaultClaims(claims: Record<string, unknown>) {
    const now = this.nowSeconds();
    return withoutUndefined({
      iss: this.issuer,
      aud: this.options.audience ?? 'https://mcp.test.example/mcp',
      sub: 'user-1',
      email: 'alice@corp.example',
      iat: now,
      exp: now + 600,
      ...claims,
    });
  }

  private metadataPaths(): string[] {
    const locations = this.options.metadata ?? ['oauth-inserted', 'openid-appended'];
    return locations.map((location) => {
      if (location === 'oauth-inserted') {
        return `/.well-known/oauth-authorization-server${this.path}`;
      }
      if (location === 'openid-inserted') {
        return `/.well-known/openid-configuration${this.path}`;
      }
      return `${this.path}/.well-known/openid-configuration`;
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', this.origin).pathname;
    this.requests.push(path);
    if (this.hang) {
      this.hung.add(res);
      return;
    }
    if (path === `${this.path}/token` && req.method === 'POST') {
      void this.token(req, res);
      return;
    }
    if (path === `${this.path}/authorize` && req.method === 'GET') {
      return this.loginPage(new URL(req.url ?? '/', this.origin).searchParams, res);
    }
    if (path === `${this.path}/authorize` && req.method === 'POST') {
      void this.login(req, res);
      return;
    }
    if (req.method !== 'GET') {
      return send(res, 405, { error: 'method not allowed' });
    }
    if (path === `${this.path}/userinfo`) {
      void this.userinfo(req, res);
      return;
    }
    if (this.metadataPaths().includes(path)) {
      return send(res, 200, {
        issuer: this.advertisedIssuer ?? this.issuer,
        jwks_uri: this.advertisedJwksUri ?? this.jwksUrl,
        authorization_endpoint: `${this.origin}${this.path}/authorize`,
        token_endpoint: this.tokenEndpoint,
        userinfo_endpoint: `${this.origin}${this.path}/userinfo`,
        grant_types_supported: ['authorization_code', 'client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'email'],
        subject_types_supported: ['public'],
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: [this.alg],
      });
    }
    if (path === `${this.path}/jwks`) {
      if (this.jwksStatus !== 200) {
        return send(res, this.jwksStatus, { error: 'unavailable' });
      }
      return send(res, 200, { keys: this.published.map((k) => k.publicJwk) });
    }
    send(res, 404, { error: 'not found' });
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) {
      body += String(chunk);
    }
    const form = Object.fromEntries(new URLSearchParams(body));
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
      : [form.client_id, form.client_secret];
    const client = id === undefined ? undefined : this.clients.get(id);
    if (!client || client.secret !== secret) {
      return send(res, 401, { error: 'invalid_client' });
    }
    if (form.grant_type === 'authorization_code') {
      this.tokenRequests.push({ clientId: id, form });
      return this.codeGrant(id, form, res);
    }
    if (form.grant_type !== 'client_credentials') {
      return send(res, 400, { error: 'unsupported_grant_type' });
    }
    this.tokenRequests.push({ clientId: id, form });
    const claims: Record<string, unknown> = { ...client.claims, client_id: id };
    if (form.resource) {
      claims.aud = form.resource;
    }
    if (form.scope) {
      claims.scope = form.scope;
    }
    send(res, 200, { access_token: await this.mint(claims), token_type: 'Bearer', expires_in: 600 });
  }

  /** GET /authorize: the client, redirect URI and PKCE checked, then a login form. */
  private loginPage(query: URLSearchParams, res: ServerResponse): void {
    const params = Object.fromEntries(query);
    this.authorizeRequests.push(params);
    const client = this.clients.get(params.client_id ?? '');
    if (!client?.redirectUris?.includes(params.redirect_uri ?? '')) {
      return sendHtml(res, 400, '<h1>Unknown client or redirect_uri</h1>');
    }
    if (params.response_type !== 'code' || params.code_challenge_method !== 'S256' || !params.code_challenge) {
      return sendHtml(res, 400, '<h1>invalid_request: response_type=code and PKCE S256 are required</h1>');
    }
    const hidden = Object.entries(params)
      .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
      .join('');
    sendHtml(
      res,
      200,
      `<h1>Sign in to the company</h1><form method="post" action="${this.path}/authorize">${hidden}` +
        `<label>Name <input type="text" name="username"></label> <button type="submit">Sign in</button>` +
        // A person who backs out: the client hears access_denied (RFC 6749 §4.1.2.1), as from any IdP's Cancel.
        ` <button type="submit" name="decision" value="cancel" formnovalidate>Cancel</button></form>`,
    );
  }

  /** POST /authorize: the person typed a name; back to the client with a code. */
  private async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) {
      body += String(chunk);
    }
    const form = Object.fromEntries(new URLSearchParams(body));
    const client = this.clients.get(form.client_id ?? '');
    if (client?.redirectUris?.includes(form.redirect_uri ?? '') && form.decision === 'cancel') {
      const back = new URL(form.redirect_uri);
      back.searchParams.set('error', 'access_denied');
      if (form.state) {
        back.searchParams.set('state', form.state);
      }
      res.writeHead(302, { location: back.href, 'content-length': 0 });
      res.end();
      return;
    }
    if (!client?.redirectUris?.includes(form.redirect_uri ?? '') || !form.username) {
      return sendHtml(res, 400, '<h1>Sign-in refused</h1>');
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      clientId: form.client_id,
      redirectUri: form.redirect_uri,
      challenge: form.code_challenge,
      nonce: form.nonce,
      user: form.username,
      scope: form.scope ?? 'openid',
      used: false,
    });
    const back = new URL(form.redirect_uri);
    back.searchParams.set('code', code);
    if (form.state) {
      back.searchParams.set('state', form.state);
    }
    back.searchParams.set('iss', this.issuer);
    res.writeHead(302, { location: back.href, 'content-length': 0 });
    res.end();
  }

  /** GET /userinfo: the person's claims for an access token this issuer signed. */
  private async userinfo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    try {
      const { payload } = await jwtVerify(token ?? '', this.current.publicKey, { issuer: this.issuer });
      const { sub, email, email_verified } = payload;
      send(res, 200, withoutUndefined({ sub, email, email_verified }));
    } catch {
      send(res, 401, { error: 'invalid_token' });
    }
  }

  /** authorization_code: single use, same client and redirect URI, SHA-256 of the verifier equals the challenge. */
  private async codeGrant(clientId: string, form: Record<string, string>, res: ServerResponse): Promise<void> {
    const grant = this.codes.get(form.code ?? '');
    if (!grant || grant.used || grant.clientId !== clientId || grant.redirectUri !== form.redirect_uri) {
      return send(res, 400, { error: 'invalid_grant' });
    }
    grant.used = true;
    if (
      createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url') !== grant.challenge
    ) {
      return send(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    }
    const person = { sub: `sub-${grant.user}`, email: grant.user, email_verified: true, ...this.loginClaims.get(grant.user) };
    const key = this.current;
    const inIdToken = { ...person, ...Object.fromEntries([...this.idTokenOmits].map((claim) => [claim, undefined])) };
    const idToken = await new SignJWT(this.defaultClaims({ ...inIdToken, aud: clientId, nonce: grant.nonce, azp: clientId }))
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
    send(res, 200, {
      access_token: await this.mint({ ...person, scope: grant.scope }),
      id_token: idToken,
      token_type: 'Bearer',
      expires_in: 600,
      scope: grant.scope,
    });
  }
}

async function makeKey(alg: SigningAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendHtml(res: ServerResponse, status: number, body: string): void {
  const text = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Test IdP</title></head><body>${body}</body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function withoutUndefined(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
}
