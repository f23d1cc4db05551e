import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '../../test/support/manual-clock.js';
import { type MintOptions, type SigningAlg, TestIssuer, type TestIssuerOptions } from '../../test/support/test-issuer.js';
import { ConfigError } from '../config/config-error.js';
import {
  AccessTokenError,
  type AccessTokenFailure,
  AccessTokenVerifier,
  type AccessTokenVerifierOptions,
  type AccessTokenSettings,
} from './access-token-verifier.js';

const AUDIENCE = 'https://mcp.test.example/mcp';
const issuers: TestIssuer[] = [];
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

afterAll(async () => {
  await Promise.all(issuers.map((i) => i.close()));
});

async function setUp(
  issuerOptions: TestIssuerOptions = {},
  settings: Partial<AccessTokenSettings> = {},
  options: AccessTokenVerifierOptions = {},
) {
  const clock = new ManualClock();
  const issuer = await TestIssuer.start({ audience: AUDIENCE, clock, ...issuerOptions });
  issuers.push(issuer);
  const warnings: string[] = [];
  const verifier = new AccessTokenVerifier(
    { issuer: issuer.issuer, audience: AUDIENCE, ...settings },
    { clock, onWarning: (w) => warnings.push(w), ...options },
  );
  return { clock, issuer, verifier, warnings };
}

async function failure(promise: Promise<unknown>): Promise<AccessTokenError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AccessTokenError);
  return error as AccessTokenError;
}

describe('AccessTokenVerifier: a good token', () => {
  it.each<SigningAlg>(['RS256', 'ES256', 'EdDSA'])(
    'accepts a %s token and reads principal, groups, scopes, expiry and client',
    async (alg) => {
      const { clock, issuer, verifier } = await setUp({ alg });
      const token = await issuer.mint({ groups: ['seo', 'eng'], scope: 'gsc.read gsc.write', client_id: 'claude' });
      const verified = await verifier.verify(token);
      expect(verified).toMatchObject({
        principal: 'alice@corp.example',
        principalClaim: 'email',
        groups: ['seo', 'eng'],
        scopes: ['gsc.read', 'gsc.write'],
        clientId: 'claude',
        expiresAt: clock.seconds() + 600,
      });
      expect(verified.claims.iss).toBe(issuer.issuer);
      expect(Object.isFrozen(verified.claims)).toBe(true);
    },
  );

  it('accepts an audience list that contains this server (RFC 8707 resource among others)', async () => {
    const { issuer, verifier } = await setUp();
    await expect(verifier.verify(await issuer.mint({ aud: ['https://other.example/', AUDIENCE] }))).resolves.toMatchObject({
      principal: 'alice@corp.example',
    });
  });

  it('reads scp as a list (Entra ID, Okta) and azp as the client', async () => {
    const { issuer, verifier } = await setUp();
    const verified = await verifier.verify(await issuer.mint({ scp: ['gsc.read'], azp: 'vscode' }));
    expect(verified.scopes).toEqual(['gsc.read']);
    expect(verified.clientId).toBe('vscode');
  });

  it('fetches the metadata once and the keys once for many tokens', async () => {
    const { issuer, verifier } = await setUp();
    for (let i = 0; i < 5; i++) {
      await verifier.verify(await issuer.mint({ sub: `user-${i}` }));
    }
    expect(issuer.jwksRequests).toBe(1);
    expect(issuer.count('/.well-known/')).toBe(1);
  });
});

describe('AccessTokenVerifier: refused tokens', () => {
  let ctx: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    ctx = await setUp();
  });

  // Each case: what is wrong with the token, how it is made, the reason code.
  const cases: [string, (i: TestIssuer, now: number) => Promise<string> | string, AccessTokenFailure][] = [
    ['wrong issuer', (i) => i.mint({ iss: 'https://evil.example/' }), 'wrong_issuer'],
    ['issuer differing by a trailing slash', (i) => i.mint({ iss: `${i.issuer}/` }), 'wrong_issuer'],
    ['no issuer', (i) => i.mint({ iss: undefined }), 'wrong_issuer'],
    ['wrong audience', (i) => i.mint({ aud: 'https://other-mcp.example/mcp' }), 'wrong_audience'],
    ['an audience list without this server', (i) => i.mint({ aud: ['a', 'b'] }), 'wrong_audience'],
    ['no audience', (i) => i.mint({ aud: undefined }), 'wrong_audience'],
    ['expired an hour ago', (i, now) => i.mint({ exp: now - 3600, iat: now - 7200 }), 'expired'],
    ['expired exactly the leeway ago (60 s)', (i, now) => i.mint({ exp: now - 60 }), 'expired'],
    ['not valid for another 61 s', (i, now) => i.mint({ nbf: now + 61 }), 'not_yet_valid'],
    ['no exp at all', (i) => i.mint({ exp: undefined }), 'missing_expiry'],
    ['exp as a string', (i, now) => i.mint({ exp: String(now + 600) }), 'malformed'],
    ['signed by a key the issuer does not publish, under its kid', (i) => i.mint({ signWith: 'foreign' }), 'bad_signature'],
    ['signed by an unpublished key with an unknown kid', (i) => i.mint({ signWith: 'foreign', kid: 'not-published' }), 'unknown_key'],
    ['alg none', (i) => i.forgeNone(), 'unsupported_algorithm'],
    ['alg none, signature kept', (i) => `${i.forgeNone()}c2ln`, 'unsupported_algorithm'],
    ['HS256 keyed with the public key PEM', (i) => i.forgeHs256WithPublicKey(), 'unsupported_algorithm'],
    ['HS256 keyed with the public JWK', (i) => i.forgeHs256WithPublicKey({}, 'jwk'), 'unsupported_algorithm'],
    [
      'ES256 claimed under the kid of an RSA key',
      async (i) => (await i.mint()).replace(/^[^.]+/, b64({ alg: 'ES256', kid: i.kid })),
      'unknown_key',
    ],
    ['a header that is not an object', async (i) => (await i.mint()).replace(/^[^.]+/, b64('RS256')), 'malformed'],
    ['no principal at all', (i) => i.mint({ email: undefined, sub: undefined }), 'missing_principal'],
    ['an email that is a list', (i) => i.mint({ email: ['a@corp.example'] }), 'invalid_principal'],
    ['an email with a line break', (i) => i.mint({ email: 'alice@corp.example\nadmin' }), 'invalid_principal'],
    ['an email the issuer marks unverified', (i) => i.mint({ email_verified: false }), 'unverified_email'],
    [
      'email_verified "FALSE" (only true, or Cognito\'s "true", says verified)',
      (i) => i.mint({ email_verified: 'FALSE' }),
      'unverified_email',
    ],
    ['email_verified 0', (i) => i.mint({ email_verified: 0 }), 'unverified_email'],
    ['email_verified 1', (i) => i.mint({ email_verified: 1 }), 'unverified_email'],
    ['email_verified "TRUE"', (i) => i.mint({ email_verified: 'TRUE' }), 'unverified_email'],
    ['email_verified null', (i) => i.mint({ email_verified: null }), 'unverified_email'],
    ['an email with a right-to-left override', (i) => i.mint({ email: 'alice@corp.example\u202e' }), 'invalid_principal'],
    ['an email with a zero-width space', (i) => i.mint({ email: 'ali\u200bce@corp.example' }), 'invalid_principal'],
    ['an email with a no-break space', (i) => i.mint({ email: 'alice\u00a0@corp.example' }), 'invalid_principal'],
    ['an email with the Kelvin sign (NFC makes it K)', (i) => i.mint({ email: '\u212Aate@corp.example' }), 'unnormalized_principal'],
    ['an email with the Angstrom sign', (i) => i.mint({ email: '\u212Bsa@corp.example' }), 'unnormalized_principal'],
    ['an email with the Ohm sign', (i) => i.mint({ email: '\u2126mar@corp.example' }), 'unnormalized_principal'],
    ['an email with a full-width letter (NFKC makes it K)', (i) => i.mint({ email: '\uFF2Bate@corp.example' }), 'unnormalized_principal'],
    ['an email with a decomposed accent (NFC composes it)', (i) => i.mint({ email: 'jose\u0301@corp.example' }), 'unnormalized_principal'],
    ['a sub with a ligature (NFKC makes it fi)', (i) => i.mint({ email: undefined, sub: 'o\uFB01ce|42' }), 'unnormalized_principal'],
    ['groups as a string', (i) => i.mint({ groups: 'seo' }), 'invalid_groups'],
    ['groups as numbers', (i) => i.mint({ groups: [1, 2] }), 'invalid_groups'],
    ['groups as an object', (i) => i.mint({ groups: { seo: true } }), 'invalid_groups'],
    ['not a JWT', () => 'not-a-token', 'malformed'],
    ['a JWE-shaped string', () => 'a.b.c.d.e', 'malformed'],
    ['garbage header', () => 'e30x.e30.c2ln', 'malformed'],
    ['past the size bound', () => `${'a'.repeat(17_000)}.e30.c2ln`, 'malformed'],
  ];

  it.each(cases.map(([what, make, reason]) => [what, reason, make] as const))('%s → %s', async (_what, reason, make) => {
    const { issuer, verifier, clock } = ctx;
    const token = await make(issuer, clock.seconds());
    const error = await failure(verifier.verify(token));
    expect(error.reason).toBe(reason);
    expect(error.temporary).toBe(false);
    // The message is a fixed sentence: never the token, never a part of it.
    for (const part of token.split('.').filter((p) => p.length > 8)) {
      expect(error.message).not.toContain(part);
    }
    expect(error.message).not.toContain('evil');
  });
});

describe('AccessTokenVerifier: clock leeway', () => {
  it('accepts up to 59 s past exp and a nbf up to 60 s ahead, by the injected clock', async () => {
    const { clock, issuer, verifier } = await setUp();
    const now = clock.seconds();
    await expect(verifier.verify(await issuer.mint({ exp: now - 59 }))).resolves.toBeDefined();
    await expect(verifier.verify(await issuer.mint({ nbf: now + 60 }))).resolves.toBeDefined();
    const token = await issuer.mint({ exp: now + 30 });
    await expect(verifier.verify(token)).resolves.toBeDefined();
    clock.advance(89_000);
    await expect(verifier.verify(token)).resolves.toBeDefined();
    clock.advance(1_000);
    expect((await failure(verifier.verify(token))).reason).toBe('expired');
  });

  it('applies a smaller configured leeway and refuses one above 60 s', async () => {
    const { clock, issuer, verifier } = await setUp({}, {}, { leewaySeconds: 0 });
    expect((await failure(verifier.verify(await issuer.mint({ exp: clock.seconds() })))).reason).toBe('expired');
    expect(() => new AccessTokenVerifier({ issuer: issuer.issuer, audience: AUDIENCE }, { leewaySeconds: 61 })).toThrow(RangeError);
  });
});

describe('AccessTokenVerifier: key rotation and refetch bounds', () => {
  it('picks up a new kid after rotation without a restart, once the cooldown has passed', async () => {
    const { clock, issuer, verifier } = await setUp();
    await verifier.verify(await issuer.mint());
    await issuer.rotate();
    const rotated = await issuer.mint();
    // Within the cooldown the unknown kid is refused without asking the issuer again.
    clock.advance(10_000);
    expect((await failure(verifier.verify(rotated))).reason).toBe('unknown_key');
    expect(issuer.jwksRequests).toBe(1);
    clock.advance(21_000);
    await expect(verifier.verify(rotated)).resolves.toMatchObject({ principal: 'alice@corp.example' });
    expect(issuer.jwksRequests).toBe(2);
    // The old key is still published, so its tokens still verify, from the cache.
    await expect(verifier.verify(await issuer.mint({ signWith: 'previous' }))).resolves.toBeDefined();
    expect(issuer.jwksRequests).toBe(2);
  });

  it('drops a key the issuer stopped publishing at the next refresh', async () => {
    const { clock, issuer, verifier } = await setUp();
    const old = await issuer.mint();
    await verifier.verify(old);
    await issuer.rotate({ keepOld: false });
    clock.advance(600_000);
    expect((await failure(verifier.verify(old))).reason).toBe('unknown_key');
    await expect(verifier.verify(await issuer.mint())).resolves.toBeDefined();
  });

  it('answers a burst of unknown kids with one refetch at most', async () => {
    const { clock, issuer, verifier } = await setUp();
    await verifier.verify(await issuer.mint());
    clock.advance(31_000);
    const forged = await Promise.all(Array.from({ length: 40 }, (_, n) => issuer.mint({ signWith: 'foreign', kid: `kid-${n}` })));
    const errors = await Promise.all(forged.map((t) => failure(verifier.verify(t))));
    expect(new Set(errors.map((e) => e.reason))).toEqual(new Set(['unknown_key']));
    expect(issuer.jwksRequests).toBe(2);
  });

  it('keeps using the last good keys while the issuer is down, and retries only after the cooldown', async () => {
    const { clock, issuer, verifier, warnings } = await setUp();
    await verifier.verify(await issuer.mint());
    issuer.jwksStatus = 503;
    clock.advance(600_000);
    await expect(verifier.verify(await issuer.mint())).resolves.toBeDefined();
    expect(warnings.join('\n')).toMatch(/answered HTTP 503; still using the keys fetched before/);
    for (let i = 0; i < 10; i++) {
      await verifier.verify(await issuer.mint());
    }
    expect(issuer.jwksRequests).toBe(2);
    clock.advance(30_000);
    await verifier.verify(await issuer.mint());
    expect(issuer.jwksRequests).toBe(3);
  });

  it('an unknown kid while the issuer is down is temporary, not a bad token; a known one still verifies', async () => {
    const { clock, issuer, verifier } = await setUp();
    await verifier.verify(await issuer.mint());
    issuer.jwksStatus = 503;
    await issuer.rotate();
    clock.advance(31_000);
    const error = await failure(verifier.verify(await issuer.mint()));
    expect(error.reason).toBe('keys_unavailable');
    expect(error.temporary).toBe(true);
    await expect(verifier.verify(await issuer.mint({ signWith: 'previous' }))).resolves.toBeDefined();
    issuer.jwksStatus = 200;
    clock.advance(31_000);
    await expect(verifier.verify(await issuer.mint())).resolves.toBeDefined();
  });

  it('says the keys are unavailable (temporary) when it never had any, without a storm', async () => {
    const { clock, issuer, verifier } = await setUp();
    issuer.jwksStatus = 500;
    const token = await issuer.mint();
    for (let i = 0; i < 5; i++) {
      const error = await failure(verifier.verify(token));
      expect(error.reason).toBe('keys_unavailable');
      expect(error.temporary).toBe(true);
    }
    expect(issuer.jwksRequests).toBe(1);
    issuer.jwksStatus = 200;
    clock.advance(30_000);
    await expect(verifier.verify(token)).resolves.toBeDefined();
  });

  it('gives up on an issuer that does not answer, within the fetch timeout', async () => {
    const { issuer, verifier, warnings } = await setUp({}, {}, { timeoutMs: 150 });
    issuer.hang = true;
    expect((await failure(verifier.verify(await issuer.mint()))).reason).toBe('keys_unavailable');
    expect(warnings[0]).toMatch(/no answer within 150 ms/);
    // One hung request: the host did not answer, so the other metadata locations were not tried.
    expect(issuer.requests).toHaveLength(1);
  });

  it('verifies a token without kid against each key of its type', async () => {
    const { issuer, verifier } = await setUp();
    await issuer.rotate();
    await expect(verifier.verify(await issuer.mint({ kid: null }))).resolves.toBeDefined();
    await expect(verifier.verify(await issuer.mint({ kid: null, signWith: 'previous' }))).resolves.toBeDefined();
    expect((await failure(verifier.verify(await issuer.mint({ kid: null, signWith: 'foreign' })))).reason).toBe('bad_signature');
  });
});

describe('AccessTokenVerifier: discovery', () => {
  it('finds the keys through RFC 8414 path insertion for an issuer with a path', async () => {
    const { issuer, verifier } = await setUp({ path: '/tenant1', metadata: ['oauth-inserted'] });
    await verifier.verify(await issuer.mint());
    expect(issuer.requests[0]).toBe('/.well-known/oauth-authorization-server/tenant1');
  });

  it('falls back to OpenID Connect discovery, inserted then appended, in the MCP order', async () => {
    const { issuer, verifier } = await setUp({ path: '/realms/corp', metadata: ['openid-appended'] });
    await verifier.verify(await issuer.mint());
    expect(issuer.requests.slice(0, 3)).toEqual([
      '/.well-known/oauth-authorization-server/realms/corp',
      '/.well-known/openid-configuration/realms/corp',
      '/realms/corp/.well-known/openid-configuration',
    ]);
  });

  it('uses the root openid-configuration for an issuer without a path, trailing slash or not', async () => {
    for (const trailingSlash of [false, true]) {
      const { issuer, verifier } = await setUp({ trailingSlash, metadata: ['openid-appended'] });
      await verifier.verify(await issuer.mint());
      expect(issuer.requests.slice(0, 2)).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
    }
  });

  it('does not discover at all when GSC_AUTH_JWKS_URL is given', async () => {
    const clock = new ManualClock();
    const issuer = await TestIssuer.start({ audience: AUDIENCE, clock, metadata: [] });
    issuers.push(issuer);
    const verifier = new AccessTokenVerifier({ issuer: issuer.issuer, audience: AUDIENCE, jwksUrl: issuer.jwksUrl }, { clock });
    await verifier.verify(await issuer.mint());
    expect(issuer.requests).toEqual(['/jwks']);
  });

  it('refuses metadata naming another issuer (RFC 8414 §3.3 mix-up defence)', async () => {
    const { issuer, verifier, warnings } = await setUp();
    issuer.advertisedIssuer = 'https://login.other.example/';
    expect((await failure(verifier.verify(await issuer.mint()))).reason).toBe('keys_unavailable');
    expect(issuer.jwksRequests).toBe(0);
    expect(warnings[0]).toMatch(/names the issuer "https:\/\/login.other.example\/", not this one/);
  });

  it('refuses a jwks_uri that is plain http to a remote host', async () => {
    const { issuer, verifier, warnings } = await setUp();
    issuer.advertisedJwksUri = 'http://keys.example.com/jwks';
    expect((await failure(verifier.verify(await issuer.mint()))).reason).toBe('keys_unavailable');
    expect(warnings[0]).toMatch(/neither https nor http to a loopback host/);
  });
});

describe('AccessTokenVerifier: principal and groups claims', () => {
  const mintAndVerify = async (settings: Partial<AccessTokenSettings>, claims: MintOptions) => {
    const { issuer, verifier } = await setUp({}, settings);
    return verifier.verify(await issuer.mint(claims));
  };

  it('falls back to sub when the token has no email, by default only', async () => {
    await expect(mintAndVerify({}, { email: undefined, sub: 'auth0|42' })).resolves.toMatchObject({
      principal: 'auth0|42',
      principalClaim: 'sub',
    });
    const error = await failure(mintAndVerify({ principalClaim: 'upn' }, { sub: 'auth0|42' }));
    expect(error.reason).toBe('missing_principal');
  });

  it('reads a configured principal claim and a configured groups claim', async () => {
    const verified = await mintAndVerify(
      { principalClaim: 'preferred_username', groupsClaim: 'https://corp.example/groups' },
      { preferred_username: 'bob@corp.example', 'https://corp.example/groups': ['seo'], groups: ['ignored'] },
    );
    expect(verified).toMatchObject({ principal: 'bob@corp.example', principalClaim: 'preferred_username', groups: ['seo'] });
  });

  it('treats an absent groups claim as no groups, and accepts email_verified true, "true" or absent', async () => {
    await expect(mintAndVerify({}, { email_verified: true })).resolves.toMatchObject({ groups: [] });
    await expect(mintAndVerify({}, { email_verified: 'true' })).resolves.toMatchObject({ principal: 'alice@corp.example' });
    await expect(mintAndVerify({}, { email_verified: undefined })).resolves.toMatchObject({ principal: 'alice@corp.example' });
  });

  it('gives the principal in the one canonical spelling: as written, ASCII lower-case for an address; an opaque sub as written', async () => {
    await expect(mintAndVerify({}, { email: 'Kate@Corp.Example' })).resolves.toMatchObject({ principal: 'kate@corp.example' });
    await expect(mintAndVerify({}, { email: '\u041Aate@corp.example' })).resolves.toMatchObject({ principal: '\u041Aate@corp.example' });
    await expect(mintAndVerify({}, { email: 'Jos\u00e9@corp.example' })).resolves.toMatchObject({ principal: 'jos\u00e9@corp.example' });
    await expect(mintAndVerify({}, { email: undefined, sub: '00uAbC' })).resolves.toMatchObject({
      principal: '00uAbC',
      principalClaim: 'sub',
    });
  });

  it('refuses a look-alike principal with a fixed sentence, keeping its ASCII-escaped spelling for the audit trail only', async () => {
    const error = await failure(mintAndVerify({}, { email: '\u212Aate@corp.example' }));
    expect(error.reason).toBe('unnormalized_principal');
    expect(error.description).not.toMatch(/ate@corp/);
    expect(error.description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/); // RFC 6750 error_description characters
    expect(error.refusedPrincipal).toBe('\\u{212A}ate@corp.example');
  });
});

describe('AccessTokenVerifier: settings', () => {
  it.each([
    [{ issuer: 'http://login.corp.example/' }, /GSC_AUTH_ISSUER must be .*https/],
    [{ issuer: 'login.corp.example' }, /GSC_AUTH_ISSUER/],
    [{ issuer: 'https://login.corp.example/?tenant=1' }, /GSC_AUTH_ISSUER must have no query/],
    [{ audience: ' ' }, /GSC_AUTH_AUDIENCE must name this server/],
    [{ jwksUrl: 'http://keys.corp.example/jwks' }, /GSC_AUTH_JWKS_URL must be an https URL/],
    [{ principalClaim: '' }, /GSC_AUTH_PRINCIPAL_CLAIM must be a claim name/],
  ])('refuses %j', (override, message) => {
    const make = () => new AccessTokenVerifier({ issuer: 'https://login.corp.example/', audience: AUDIENCE, ...override });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(message);
  });

  it('accepts http to a loopback issuer (a sidecar, a test issuer)', () => {
    expect(() => new AccessTokenVerifier({ issuer: 'http://127.0.0.1:8080/realms/x', audience: AUDIENCE })).not.toThrow();
  });
});
