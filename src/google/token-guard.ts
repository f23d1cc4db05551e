import { settle } from '../common/settle.js';
import type { OAuth2Client } from 'google-auth-library';
import { MalformedAnswerError } from './google-failure.js';
import { redactRequestError, requestSecrets } from './upstream-secrets.js';

/**
 * What every client of ours does with its token requests, shared credential or
 * a person's connected grant alike: no retries of its own (GoogleService's
 * bounded attempts decide), an optional redirect to GSC_OAUTH_TOKEN_URL, and a
 * 200 that is not a token counted as a failure. And for every request (token
 * and API): a failure's error is stripped of that request's own secrets — the
 * refresh token, client secret, assertion or code it sent, the access token it
 * was sent with — wherever the answer echoes them (issue 29: a token endpoint's
 * error_description was copied into tool results).
 */
export function guardTokenRequests(client: OAuth2Client, isTokenUrl: (url: string) => boolean, redirect?: URL): void {
  client.transporter.interceptors.request.add({
    resolved: (options) =>
      settle(() => {
        const secrets = requestSecrets({ config: options });
        if (secrets.length > 0) {
          // Replaces gaxios's default redactor, which leaves refresh_token in the error and the answer's text as it came.
          (options as { errorRedactor?: (error: unknown) => unknown }).errorRedactor = (error) => redactRequestError(error, secrets);
        }
        if (!isTokenUrl(String(options.url))) {
          return options;
        }
        if (redirect) {
          options.url = redirect;
        }
        // google-auth-library retries a token POST up to 3 times on its own; inside
        // GoogleService's bounded attempts that made 16 requests for one call.
        options.retry = false;
        options.retryConfig = { ...options.retryConfig, retry: 0 };
        return options;
      }),
  });
  // A 200 from the token endpoint that is not a token (an HTML login page of a
  // proxy, truncated JSON) would otherwise become a request without credentials.
  client.transporter.interceptors.response.add({
    resolved: (response) =>
      settle(() => {
        if (!isTokenUrl(String(response.config?.url ?? ''))) {
          return response;
        }
        const data = response.data as { access_token?: unknown } | undefined;
        if (
          typeof data !== 'object' ||
          data === null ||
          Array.isArray(data) ||
          typeof data.access_token !== 'string' ||
          !data.access_token
        ) {
          throw new MalformedAnswerError(describeTokenBody(response.data), 'token');
        }
        return response;
      }),
  });
}

function describeTokenBody(data: unknown): string {
  if (data === undefined || data === null || data === '') {
    return 'an empty body';
  }
  if (typeof data === 'string') {
    return data.trim().startsWith('<') ? 'an HTML page' : 'something that is not JSON';
  }
  if (Array.isArray(data)) {
    return 'a JSON array';
  }
  return 'a JSON object without access_token';
}
