import { createLocalJWKSet, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import { isLoopback } from '../config/config.js';

/** The signing keys could not be obtained: the issuer is unreachable, slow, or serves something unusable. */
export class IssuerKeysUnavailable extends Error {
  override readonly name = 'IssuerKeysUnavailable';

  /** The host did not answer at all (as opposed to answering with something unusable). */
  constructor(
    message: string,
    readonly unreachable = false,
  ) {
    super(message);
  }
}

export interface IssuerKeysOptions {
  /** The time; every cache and cooldown decision reads it, so tests move it instead of sleeping. */
  readonly clock: { now(): Date };
  /** Deadline of one HTTP request to the issuer. */
  readonly timeoutMs: number;
  /** Least time between two fetches of the same document, whatever the callers ask. */
  readonly cooldownMs: number;
  /** How long a fetched key set is used before it is fetched again. */
  readonly maxAgeMs: number;
  readonly fetch: typeof fetch;
  readonly onWarning: (message: string) => void;
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;

// A metadata document or key set past this is not one; reading it would only cost memory.
const MAX_DOCUMENT_BYTES = 512 * 1024;

/**
 * The well-known URLs of an issuer's metadata, in the order the MCP
 * authorization specification (2025-11-25, "Authorization Server Metadata
 * Discovery") has clients try them: RFC 8414 §3.1 path insertion for OAuth
 * metadata first, then OpenID Connect Discovery with path insertion, then
 * OpenID Connect Discovery 1.0 §4 path appending. Trying the same list as the
 * client means both ends find the same authorization server.
 */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  // RFC 8414 §3.1: "any terminating "/" MUST be removed before inserting "/.well-known/"".
  const path = url.pathname.replace(/\/$/, '');
  if (!path) {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** https, or http to a loopback host (a test issuer, a sidecar): anything else could be rewritten in transit. */
export function isSecureUrl(value: string): boolean {
  if (!URL.canParse(value)) {
    return false;
  }
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
}

/**
 * The issuer's signing keys: discovered once from its metadata (unless the
 * key-set URL is configured), cached, fetched again when they are older than
 * maxAgeMs or when a token names a key the cache does not hold — but never more
 * than once per cooldownMs, and concurrent callers share one request. When a
 * refresh fails the last good set stays in use: an identity provider's blip
 * must not log everyone out, and a key it really revoked disappears with the
 * first refresh that succeeds.
 *
 * Not jose's createRemoteJWKSet, though it does most of this: it reads
 * Date.now() (tests would have to sleep through its 30 s cooldown to see a
 * rotation), after a failed fetch it fetches again on the very next request (a
 * storm against an issuer that is already down), it drops a stale set when the
 * refresh fails, and it reads a response of any size.
 */
export class IssuerKeys {
  private jwksUrl: string | undefined;
  private local: LocalSet | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private lastFailure: string | undefined;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly issuer: string,
    configuredJwksUrl: string | undefined,
    private readonly options: IssuerKeysOptions,
  ) {
    this.jwksUrl = configuredJwksUrl;
  }

  /** A jose key resolver: the key the token's header names. */
  readonly resolve = async (header: JWSHeaderParameters): Promise<CryptoKey> => {
    if (!this.local || this.age() >= this.options.maxAgeMs) {
      await this.refresh();
    }
    if (!this.local) {
      throw new IssuerKeysUnavailable(this.lastFailure ?? 'the signing keys have not been fetched yet');
    }
    try {
      return await this.local(header);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') {
        throw error;
      }
      // A key we do not hold may be a rotation we have not seen yet.
      await this.refresh();
      try {
        return await this.local(header);
      } catch (retryError) {
        // While the issuer cannot be read, an unknown kid may be exactly that rotation:
        // the token cannot be checked (503), which is not the same as a bad token (401).
        if ((retryError as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY' && this.lastFailure) {
          throw new IssuerKeysUnavailable(this.lastFailure);
        }
        throw retryError;
      }
    }
  };

  private age(): number {
    return this.now() - this.fetchedAt;
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  private refresh(): Promise<void> {
    if (this.pending) {
      return this.pending;
    }
    if (this.now() - this.attemptedAt < this.options.cooldownMs) {
      return Promise.resolve();
    }
    this.attemptedAt = this.now();
    this.pending = this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<void> {
    try {
      this.jwksUrl ??= await this.discover();
      const jwks = await this.getJson(this.jwksUrl, 'key set');
      this.local = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
      this.fetchedAt = this.now();
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure =
        error instanceof IssuerKeysUnavailable ? error.message : `the key set at ${this.jwksUrl} is unusable (${(error as Error).message})`;
      this.options.onWarning(
        `OAuth issuer ${this.issuer}: ${this.lastFailure}${this.local ? '; still using the keys fetched before' : ''}; next attempt in ${Math.round(this.options.cooldownMs / 1000)} s at the earliest`,
      );
    }
  }

  private async discover(): Promise<string> {
    const problems: string[] = [];
    for (const url of discoveryUrls(this.issuer)) {
      let metadata: { issuer?: unknown; jwks_uri?: unknown };
      try {
        metadata = await this.getJson(url, 'metadata');
      } catch (error) {
        // Another candidate on a host that does not answer would not answer either.
        if (!(error instanceof IssuerKeysUnavailable) || error.unreachable) {
          throw error;
        }
        problems.push(error.message);
        continue;
      }
      // RFC 8414 §3.3 and OpenID Connect Discovery §4.3: a document naming another issuer MUST NOT be used.
      if (metadata.issuer !== this.issuer) {
        problems.push(`${url} names the issuer ${JSON.stringify(String(metadata.issuer)).slice(0, 200)}, not this one`);
      } else if (typeof metadata.jwks_uri !== 'string' || !metadata.jwks_uri) {
        problems.push(`${url} has no jwks_uri`);
      } else if (!isSecureUrl(metadata.jwks_uri)) {
        problems.push(`${url} has a jwks_uri that is neither https nor http to a loopback host`);
      } else {
        return metadata.jwks_uri;
      }
    }
    throw new IssuerKeysUnavailable(`no usable issuer metadata (${problems.join('; ')}); check GSC_AUTH_ISSUER or set GSC_AUTH_JWKS_URL`);
  }

  /** GET a JSON object, bounded in time and size. */
  private async getJson(url: string, what: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.options.fetch(url, {
        headers: { accept: 'application/json, application/jwk-set+json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : (error as Error).message;
      throw new IssuerKeysUnavailable(`fetching the ${what} at ${url} failed (${reason})`, true);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new IssuerKeysUnavailable(`the ${what} at ${url} answered HTTP ${response.status}`);
    }
    const text = await readLimited(response, MAX_DOCUMENT_BYTES).catch((error: Error) => {
      const timedOut = error.name === 'TimeoutError' || error.name === 'AbortError';
      throw new IssuerKeysUnavailable(
        `reading the ${what} at ${url} failed (${timedOut ? `not complete within ${this.options.timeoutMs} ms` : error.message})`,
        timedOut,
      );
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new IssuerKeysUnavailable(`the ${what} at ${url} is not JSON`);
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) {
      throw new IssuerKeysUnavailable(`the ${what} at ${url} is not a JSON object`);
    }
    return json as Record<string, unknown>;
  }
}

async function readLimited(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit) {
    await response.body?.cancel();
    throw new Error(`larger than ${limit} bytes`);
  }
  if (!response.body) {
    return '';
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
