// Secrets in upstream text (issue 29 break 6). A token endpoint's
// error_description, an API error or a proxy's page may quote what it was sent
// — the refresh token, the client secret, a JWT assertion, the access token —
// and Google's text is copied into sentences a model reads, into logs and into
// errors. Every such text is stripped of them in one way, here: at the source,
// as gaxios's errorRedactor on every request of our clients (token-guard.ts,
// with that request's own secrets), and again when a failure is read
// (google-failure.ts readFailure, with the server's configured secrets and the
// acting credential's tokens). Error codes are kept.

/** What stands in upstream text for a secret taken out of it. */
export const REDACTED = '[redacted]';
/** Shorter strings are not treated as secrets (they would match ordinary words); every real token and secret is far longer. */
const MIN_SECRET_LENGTH = 8;
/** Form fields of a token request (and a revocation) that are secrets, as Google's OAuth endpoints name them. */
const SECRET_FIELDS = ['refresh_token', 'client_secret', 'code', 'code_verifier', 'assertion', 'client_assertion', 'access_token', 'token'];

/** `text` with every secret (as written, percent-encoded, or JSON-escaped) replaced by [redacted]. */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  const spellings = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
      continue;
    }
    spellings.add(secret);
    spellings.add(encodeURIComponent(secret));
    spellings.add(JSON.stringify(secret).slice(1, -1));
  }
  let out = text;
  // Longest first, so that a secret containing another is taken out whole.
  for (const spelling of [...spellings].sort((a, b) => b.length - a.length)) {
    out = out.split(spelling).join(REDACTED);
  }
  return out;
}

/** The secrets a failed request carried: the token request's form fields, and the access token it was sent with. */
export function requestSecrets(error: unknown): string[] {
  const config = (error as { config?: { data?: unknown; body?: unknown; headers?: unknown } } | null | undefined)?.config;
  if (!config || typeof config !== 'object') {
    return [];
  }
  const found: string[] = [];
  for (const form of [config.data, config.body]) {
    const fields = formFields(form);
    for (const field of SECRET_FIELDS) {
      const value = fields?.get(field);
      if (value) {
        found.push(value);
      }
    }
  }
  const authorization = headerValue(config.headers, 'authorization');
  const bearer = authorization ? /^Bearer\s+(\S+)/i.exec(authorization)?.[1] : undefined;
  if (bearer) {
    found.push(bearer);
  }
  return found;
}

type RequestConfigLike = { data?: unknown; body?: unknown; headers?: unknown };

/**
 * Takes `secrets` out of a failed request's error in place, as gaxios's
 * errorRedactor (token-guard.ts sets it on every request of our clients, with
 * that request's own secrets): the message, the answer's body (a token
 * endpoint's error_description echoing the refresh token or client secret)
 * and the request config the error carries (its secret form fields and
 * Authorization header), so that nothing holding the error — a sentence, a
 * log line, a thrown object — carries them on.
 */
export function redactRequestError<E>(error: E, secrets: readonly string[]): E {
  const e = error as { message?: unknown; config?: RequestConfigLike; response?: { data?: unknown; config?: RequestConfigLike } };
  if (typeof e.message === 'string') {
    e.message = redactSecrets(e.message, secrets);
  }
  if (e.response) {
    e.response.data = redactValue(e.response.data, secrets);
    redactConfig(e.response.config, secrets);
  }
  redactConfig(e.config, secrets);
  return error;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') {
    return redactSecrets(value, secrets);
  }
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    try {
      return JSON.parse(redactSecrets(JSON.stringify(value), secrets)) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

function redactConfig(config: RequestConfigLike | undefined, secrets: readonly string[]): void {
  if (!config || typeof config !== 'object') {
    return;
  }
  for (const key of ['data', 'body'] as const) {
    const form = config[key];
    if (form && typeof form === 'object' && typeof (form as URLSearchParams).set === 'function') {
      const params = form as URLSearchParams;
      for (const field of SECRET_FIELDS) {
        if (params.has(field)) {
          params.set(field, REDACTED);
        }
      }
    } else if (typeof form === 'string') {
      config[key] = redactSecrets(form, secrets);
    }
  }
  const headers = config.headers;
  if (headers && typeof headers === 'object') {
    if (typeof (headers as Headers).set === 'function') {
      if ((headers as Headers).has('authorization')) {
        (headers as Headers).set('authorization', REDACTED);
      }
    } else {
      for (const name of Object.keys(headers)) {
        if (name.toLowerCase() === 'authorization') {
          (headers as Record<string, unknown>)[name] = REDACTED;
        }
      }
    }
  }
}

function formFields(form: unknown): { get(name: string): string | null | undefined } | undefined {
  // URLSearchParams, also one of another realm (instanceof would miss it); gaxios keeps it as both data and body.
  if (form && typeof form === 'object' && typeof (form as URLSearchParams).get === 'function') {
    return new URLSearchParams((form as URLSearchParams).toString());
  }
  if (typeof form === 'string') {
    return new URLSearchParams(form);
  }
  if (form && typeof form === 'object' && !Array.isArray(form)) {
    const record = form as Record<string, unknown>;
    return { get: (name) => (typeof record[name] === 'string' ? record[name] : undefined) };
  }
  return undefined;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') {
    return undefined;
  }
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const entry = Object.entries(headers as Record<string, unknown>).find(([key]) => key.toLowerCase() === name);
  return typeof entry?.[1] === 'string' ? entry[1] : undefined;
}
