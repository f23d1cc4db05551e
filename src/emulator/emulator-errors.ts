// Google error bodies. The legacy surfaces (/webmasters, /siteVerification)
// answer in the classic shape with an errors[] array; the One Platform surfaces
// (/v1/urlInspection, Indexing) answer {error:{code,message,status}} only.

export type ErrorStyle = 'classic' | 'rpc';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const DEFAULT_REASONS: Record<number, string> = {
  400: 'badRequest',
  401: 'authError',
  403: 'forbidden',
  404: 'notFound',
  405: 'httpMethodNotAllowed',
  409: 'conflict',
  429: 'rateLimitExceeded',
  500: 'backendError',
  503: 'backendError',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Request contains an invalid argument.',
  401: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
  403: 'The caller does not have permission',
  404: 'Requested entity was not found.',
  405: 'Method Not Allowed',
  409: 'The resource already exists.',
  429: "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'searchconsole.googleapis.com' for consumer 'project_number:000000000000'.",
  500: 'Internal error encountered.',
  503: 'The service is currently unavailable.',
};

/** Thrown by route handlers; the server turns it into the HTTP answer. */
export class GoogleApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body && 'error' in body ? JSON.stringify(body) : `HTTP ${status}`);
  }
}

export interface ErrorItemExtras {
  locationType?: string;
  location?: string;
}

export interface GoogleErrorInput {
  status: number;
  message?: string;
  /** Message inside errors[] when it differs from the top-level one. */
  itemMessage?: string;
  reason?: string;
  extras?: ErrorItemExtras;
  details?: unknown[];
}

export function googleErrorBody(style: ErrorStyle, input: GoogleErrorInput): { error: Record<string, unknown> } {
  const message = input.message ?? DEFAULT_MESSAGES[input.status] ?? `HTTP ${input.status}`;
  const error: Record<string, unknown> = { code: input.status, message };
  if (style === 'classic') {
    error.errors = [
      {
        message: input.itemMessage ?? message,
        domain: 'global',
        reason: input.reason ?? DEFAULT_REASONS[input.status] ?? 'unknown',
        ...input.extras,
      },
    ];
  }
  const statusName = STATUS_NAMES[input.status];
  if (statusName) {
    error.status = statusName;
  }
  if (input.details?.length) {
    error.details = input.details;
  }
  return { error };
}

export function googleError(style: ErrorStyle, input: GoogleErrorInput, headers?: Record<string, string>): GoogleApiError {
  return new GoogleApiError(input.status, googleErrorBody(style, input), headers);
}

export function unauthenticated(style: ErrorStyle): GoogleApiError {
  return googleError(
    style,
    {
      status: 401,
      itemMessage: 'Invalid Credentials',
      reason: 'authError',
      extras: { locationType: 'header', location: 'Authorization' },
    },
    { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
  );
}

export function scopeInsufficient(style: ErrorStyle, service: string, method: string): GoogleApiError {
  return googleError(
    style,
    {
      status: 403,
      message: 'Request had insufficient authentication scopes.',
      itemMessage: 'Insufficient Permission',
      reason: 'insufficientPermissions',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
          domain: 'googleapis.com',
          metadata: { service, method },
        },
      ],
    },
    { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="insufficient_scope"' },
  );
}

/** Search Console's answer for a property the caller cannot use (including a mis-spelled one). */
export function forbiddenSite(siteUrl: string): GoogleApiError {
  const itemMessage = `User does not have sufficient permission for site '${siteUrl}'.`;
  return googleError('classic', {
    status: 403,
    message: `${itemMessage} See also: https://support.google.com/webmasters/answer/2451999.`,
    itemMessage,
    reason: 'forbidden',
  });
}

export function notFound(style: ErrorStyle, message = 'Requested entity was not found.'): GoogleApiError {
  return googleError(style, { status: 404, message, reason: 'notFound' });
}

export function invalidParameter(style: ErrorStyle, message: string, location?: string): GoogleApiError {
  return googleError(style, {
    status: 400,
    message,
    reason: 'invalidParameter',
    extras: location ? { locationType: 'parameter', location } : undefined,
  });
}

export function badRequest(style: ErrorStyle, message: string): GoogleApiError {
  return googleError(style, { status: 400, message, reason: 'badRequest' });
}

/** Unknown fields in a JSON body, worded like Google's JSON-to-proto parser. */
export function unknownField(style: ErrorStyle, name: string, path = ''): GoogleApiError {
  const where = path ? ` at '${path}'` : '';
  return googleError(style, {
    status: 400,
    message: `Invalid JSON payload received. Unknown name "${name}"${where}: Cannot find field.`,
    reason: 'invalid',
  });
}
