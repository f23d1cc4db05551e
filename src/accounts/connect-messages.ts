import { permissionName, permissionWords } from '../google/permission-names.js';
import { LOCAL_PRINCIPAL } from '../identity/caller.js';
import type { PageText } from './connect-pages.js';
import { MAX_LIVE_LINKS, type RequestRefusal } from './connect-requests.js';

// What the connect pages say (PRODUCT.md §8d): each page says what happened,
// that nothing was stored when nothing was, and what to do next. Values are
// plain text here; connect-pages.ts escapes them.

const AGAIN = 'Call the tool again from your MCP client for a new link.';
const RETRY = 'Open the connect link again to retry.';

export const REFUSED: Record<RequestRefusal, readonly [number, PageText]> = {
  unknown: [404, { title: 'Unknown link', lines: ['This connect link is not known to this server, so nothing was stored.', AGAIN] }],
  expired: [
    410,
    { title: 'This link has expired', lines: ['Connect links work for 10 minutes; this one has expired, so nothing was stored.', AGAIN] },
  ],
  used: [
    410,
    {
      title: 'This link was already used',
      lines: ['A Google account was already connected through this link; it works once, so nothing more was stored.', AGAIN],
    },
  ],
  denied: [
    410,
    {
      title: 'This link was declined',
      lines: ['Access was declined at Google through this link, which ended it, so nothing was stored.', AGAIN],
    },
  ],
  cancelled: [
    410,
    {
      title: 'This link was cancelled',
      lines: ['The sign-in was cancelled through this link, which ended it, so nothing was stored.', AGAIN],
    },
  ],
  superseded: [
    410,
    {
      title: 'A newer link replaced this one',
      lines: [
        `Only your ${MAX_LIVE_LINKS} newest connect links work, and newer ones were made since this one, so it no longer works and nothing was stored.`,
        'Open the newest link your MCP client showed you, or call the tool again for a new one.',
      ],
    },
  ],
};

export const NOT_WAITING: PageText = {
  title: 'Not an answer this server is waiting for',
  lines: ['This sign-in answer is unknown, expired or was already used, so nothing was stored.', RETRY],
};

export const DIFFERENT_BROWSER: PageText = {
  title: 'A different browser',
  lines: ['This answer reached a different browser from the one that opened the connect link, so nothing was stored.'],
};

export const SOMEONE_ELSE: PageText = {
  title: 'This link was made for someone else',
  lines: [
    'The connect link was made for another person than the one signed in here, so nothing was stored.',
    'Open a link from your own MCP client, or sign in as the person who asked for it.',
  ],
};

export const SIGN_IN_FIRST: PageText = {
  title: 'Sign in first',
  lines: [
    'This page could not tell who you are, so nothing was stored.',
    'Sign in to the application that serves it, then open the link again.',
  ],
};

/**
 * The person said no at Google (Cancel on the consent page) or at the company
 * IdP's sign-in: the link is spent, and the call waiting on it ends with the
 * same news (PRODUCT.md §8d). `waiting`: the link came by URL elicitation, so a
 * call may still be waiting for it; otherwise the call that gave it has ended.
 */
export function saidNo(outcome: 'denied' | 'cancelled', waiting: boolean, issuer?: string): PageText {
  const what = outcome === 'denied' ? 'You declined at Google' : `You cancelled the sign-in${issuer ? ` at ${issuer}` : ''}`;
  return {
    title: outcome === 'denied' ? 'You declined at Google' : 'Sign-in cancelled',
    lines: [
      `${what}, so nothing was stored and nothing was sent to Google: no Google account is connected.`,
      waiting
        ? 'Your MCP client has been told: the call that showed you this link ends now, saying so. Call the tool again when you want to connect.'
        : 'This link is used up; call the tool again from your MCP client when you want to connect.',
    ],
  };
}

export const NO_REFRESH_TOKEN: PageText = {
  title: 'Google sent no lasting access',
  lines: [
    'Google answered without a refresh token, so this server could not keep access and nothing was stored.',
    'Remove this app’s access at https://myaccount.google.com/permissions, then open a new connect link and allow again.',
  ],
};

export const NO_ACCOUNT: PageText = {
  title: 'Google did not name the account',
  lines: ['Google’s userinfo answer named no account (sub and email), so nothing was stored.', RETRY],
};

export const NOT_CONNECTED_MODE: PageText = { title: 'Not found', lines: ['This server does not connect Google accounts.'] };

export const IDP_NOT_CONFIGURED: PageText = {
  title: 'Sign-in is not configured',
  lines: ['This server needs GSC_AUTH_CLIENT_ID and GSC_AUTH_CLIENT_SECRET to sign you in, so nothing was stored.'],
};

export function googleError(error: string | undefined): PageText {
  return {
    title: 'Google did not grant access',
    lines: [`Google answered ${error ?? 'without an authorization code'}, so nothing was stored.`, RETRY],
  };
}

export function idpError(issuer: string, error: string): PageText {
  return { title: 'Sign-in not completed', lines: [`The sign-in with ${issuer} answered ${error}, so nothing was stored.`, RETRY] };
}

export function signInFailed(reason: string): PageText {
  return { title: 'Sign-in failed', lines: [`${reason.charAt(0).toUpperCase()}${reason.slice(1)}, so nothing was stored.`, RETRY] };
}

/** Google's error code (e.g. invalid_grant), never its whole body: that could echo what was sent. */
export function googleFailure(what: string, failure: unknown): PageText {
  const data = (failure as { response?: { data?: { error?: unknown } } }).response?.data;
  const code = typeof data?.error === 'string' ? data.error : (failure as { code?: unknown }).code;
  return {
    title: 'Google refused',
    lines: [`Google ${what}${typeof code === 'string' ? ` (${code})` : ''}, so nothing was stored.`, RETRY],
  };
}

/** Where a grant was stored and for whom, as the success page says it. */
export interface ConnectedTo {
  /** How the page host names this server: "the Search Console server at http://127.0.0.1:3000". */
  readonly server: string;
  /** The principal the connect request was made for. */
  readonly principal: string;
}

/** "you, the local user" on loopback (stdio, or HTTP on loopback without a token); otherwise the principal's own name. */
export function whom(principal: string): string {
  return principal === LOCAL_PRINCIPAL ? 'you, the local user' : principal;
}

export function connected(email: string, to: ConnectedTo, granted: readonly string[], missing: readonly string[]): PageText {
  const named = granted.map(permissionWords).filter((words) => words !== undefined);
  return {
    title: 'Google account connected',
    lines: [
      `Connected ${email} to ${to.server} for ${whom(to.principal)}.`,
      ...(named.length ? [`${email} granted: ${named.map((words) => `“${words}”`).join(', ')}.`] : []),
      ...(missing.length
        ? [
            `${email} did not grant ${missing.map(permissionName).join(' and ')}. ` +
              'The tools that need it run only through another Google account you connected that granted it, and leave your tool list when none did; ' +
              `to use them as ${email}, connect it again and allow it.`,
          ]
        : []),
      'You can close this page and go back to your MCP client.',
    ],
  };
}
