import type { IncomingMessage, ServerResponse } from 'node:http';
import { SERVER_NAME } from '../common/product.js';

// The connect pages' HTML and headers (PRODUCT.md §8d): never framed, never
// cached, nothing loaded from anywhere (one inline style), no Referer sent on
// (the callback URL carries Google's code), every value escaped.

export const CONNECT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS = {
  'content-security-policy': CONNECT_PAGE_CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageText {
  /** Short: the page title and heading. */
  readonly title: string;
  /** Sentences, each a paragraph; plain text (escaped here). */
  readonly lines: readonly string[];
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;color:#1f1f1f;background:#f6f8fb;margin:0;padding:3rem 1rem}' +
  'main{max-width:36rem;margin:0 auto;background:#fff;border:1px solid #dfe3e8;border-radius:.9rem;padding:1.6rem 2rem}' +
  'h1{font-size:1.4rem;margin:0 0 .8rem}p{margin:.6rem 0}footer{margin-top:1.6rem;color:#5f6368;font-size:.85rem}';

export function renderPage(text: PageText): string {
  const lines = text.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(text.title)}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(text.title)}</h1>${lines}<footer>${escapeHtml(SERVER_NAME)}</footer></main></body></html>\n`
  );
}

export function sendPage(res: ServerResponse, status: number, text: PageText, cookies: readonly string[] = []): void {
  const body = renderPage(text);
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(cookies.length ? { 'set-cookie': [...cookies] } : {}),
  });
  res.end(body);
}

export function sendRedirect(res: ServerResponse, location: string, cookies: readonly string[] = []): void {
  res.writeHead(302, { ...HEADERS, location, 'content-length': 0, ...(cookies.length ? { 'set-cookie': [...cookies] } : {}) });
  res.end();
}

/**
 * The cookie that binds a flow to the browser that started it. Over https:
 * `__Host-` (no Domain, Path=/, Secure), so no sibling host can set or read it;
 * on plain-http loopback a plain name, as browsers refuse Secure there.
 */
export function browserCookieName(secure: boolean): string {
  return secure ? '__Host-gsc_connect' : 'gsc_connect';
}

export function browserCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  return `${browserCookieName(secure)}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** One cookie's value from the request, or undefined. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      return part.slice(at + 1).trim();
    }
  }
  return undefined;
}

/** A page request that threw: logged for the operator, and a 500 page when nothing was sent yet (nothing is stored by a failed page). */
export function sendFailurePage(res: ServerResponse, error: unknown, log: (line: string) => void): void {
  log(`connect page failed: ${(error as Error).message}`);
  if (!res.headersSent) {
    sendPage(res, 500, {
      title: 'Something went wrong',
      lines: ['The connect page failed, so nothing was stored. Open the link again.'],
    });
  }
}
