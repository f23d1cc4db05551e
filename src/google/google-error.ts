import { UserFacingError } from '../common/user-facing-error.js';

/** What a Google call was for, so that a failure can be told as a sentence. */
export interface GoogleOperation {
  /** Infinitive phrase: "list the sitemaps of https://example.com/". */
  readonly action: string;
  /** The property involved, if any. */
  readonly property?: string;
  /** Safe to send again (GET/PUT/DELETE, and read-only POSTs). */
  readonly retry: boolean;
  /** The call changes something at Google. */
  readonly write: boolean;
}

export type QuotaWindow = 'minute' | 'day';

/** A failed Google call, told as a sentence, with the facts callers branch on. */
export class GoogleApiError extends UserFacingError {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly reason: string | undefined,
    readonly quota: QuotaWindow | undefined,
    readonly retryAfterSeconds: number | undefined,
    /** Google's own message, unchanged (Google-supplied text: treat as data). */
    readonly googleMessage: string = '',
  ) {
    super(message);
  }

  /** The same failure told differently, e.g. with a domain's own rules added. */
  rephrased(message: string): GoogleApiError {
    return new GoogleApiError(message, this.status, this.reason, this.quota, this.retryAfterSeconds, this.googleMessage);
  }
}

export interface Failure {
  readonly status?: number;
  readonly code?: string;
  readonly message: string;
  readonly reason?: string;
  readonly retryAfterSeconds?: number;
  readonly quota?: QuotaWindow;
}

/** Reads a GaxiosError (or any thrown value) into plain facts. */
export function readFailure(error: unknown): Failure {
  const e = error as {
    status?: number;
    code?: string | number;
    message?: string;
    response?: { status?: number; data?: unknown; headers?: { get?(name: string): string | null } | Record<string, string> };
  };
  const status = e.response?.status ?? e.status;
  const body = (e.response?.data ?? {}) as { error?: { message?: string; status?: string; errors?: { reason?: string }[]; details?: { reason?: string }[] } | string; error_description?: string };
  const apiError = typeof body.error === 'object' ? body.error : undefined;
  const message = apiError?.message ?? (typeof body.error === 'string' ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}` : undefined) ?? e.message ?? String(error);
  const reason = apiError?.details?.find((d) => d.reason)?.reason ?? apiError?.errors?.[0]?.reason ?? apiError?.status;
  const headers = e.response?.headers;
  const retryAfter = typeof headers?.get === 'function' ? headers.get('retry-after') : (headers as Record<string, string> | undefined)?.['retry-after'];
  return {
    status,
    code: typeof e.code === 'string' ? e.code : undefined,
    message,
    reason,
    retryAfterSeconds: parseRetryAfter(retryAfter ?? undefined),
    quota: status === 429 || /quota|rate ?limit/i.test(reason ?? '') ? (/per ?day|daily|long-term/i.test(message) ? 'day' : 'minute') : undefined,
  };
}

export function isRetryable(failure: Failure): boolean {
  if (failure.status === undefined) return failure.code !== 'AbortError';
  if (failure.status === 429) return failure.quota !== 'day';
  return failure.status === 408 || failure.status >= 500;
}

/** The sentence a model reads: what failed, why, what to do next, whether anything changed. */
export function describeFailure(failure: Failure, op: GoogleOperation, principal: string | undefined, attempts: number): string {
  const google = quote(failure.message);
  const unchanged = 'Nothing was changed.';
  const who = principal ?? 'the configured credential';
  const status = failure.status;
  if (status === undefined) {
    const maybe = op.write ? 'It is not known whether Google applied the change; check before repeating it.' : unchanged;
    return `Could not reach Google to ${op.action} (${failure.code ?? failure.message}) after ${plural(attempts, 'attempt')}. ${maybe} Check the network or GSC_API_ROOT_URL, then retry.`;
  }
  if (/unauthorized_client/.test(failure.message)) {
    return `Google refused to issue an access token to ${who} for the scopes this server requests (${google}), so nothing was sent or changed. For domain-wide delegation, a Workspace admin must authorise the service account's client ID for exactly those scopes (Admin console → Security → API controls → Domain-wide delegation) — or narrow the tools (GSC_READ_ONLY, GSC_ALLOW_TOOLS) so fewer scopes are requested.`;
  }
  if (status === 401) {
    return `Google rejected the credential (${who}) while trying to ${op.action}: ${google}. ${unchanged} The key may have been deleted or the refresh token revoked; create a new credential and restart the server.`;
  }
  if (status === 403 && /SCOPE_INSUFFICIENT|insufficientPermissions/i.test(`${failure.reason} ${failure.message}`)) {
    return `Google refused to ${op.action} because the access token lacks the OAuth scope this call needs: ${google}. ${unchanged} The server requests only the scopes of its registered tools (GSC_READ_ONLY, GSC_ALLOW_TOOLS, GSC_DENY_TOOLS); for a delegated service account, ask the Workspace admin to grant the scope.`;
  }
  if (status === 429) {
    const when =
      failure.quota === 'day'
        ? 'The daily quota resets at midnight Pacific Time; retry tomorrow or narrow the request.'
        : `Retry in ${failure.retryAfterSeconds ?? 60} seconds.`;
    return `Google's ${failure.quota === 'day' ? 'daily' : 'per-minute'} quota is exhausted, so it refused to ${op.action}: ${google}. ${unchanged} ${when}`;
  }
  if (status >= 500) {
    const maybe = op.write ? 'It is not known whether Google applied the change; check the current state before repeating it.' : unchanged;
    return `Google failed with HTTP ${status} while trying to ${op.action} (${google}), after ${plural(attempts, 'attempt')}. ${maybe} This is usually temporary; retry in a minute.`;
  }
  if (status === 403) {
    const target = op.property ? ` ${op.property}` : ' this resource';
    return `Google refused to ${op.action}: ${google}. ${unchanged} The credential (${who}) lacks the permission needed on${target}: add it as a user of the property in Search Console (Settings → Users and permissions) — Owner for indexing and verification, Full for other changes — or check the spelling with list_sites.`;
  }
  if (status === 404) {
    return `Google found nothing to ${op.action}: ${google}. ${unchanged} Check the spelling with the matching list tool.`;
  }
  return `Google refused to ${op.action} (HTTP ${status}): ${google}. ${unchanged} Correct the arguments and retry.`;
}

function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `"${flat.length > 300 ? `${flat.slice(0, 297)}...` : flat}"`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
