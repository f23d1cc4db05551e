import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { browserCookie, browserCookieName, CONNECT_PAGE_CSP, readCookie, renderPage } from './connect-pages.js';

describe('connect pages', () => {
  it('escape every value they show', () => {
    const html = renderPage({ title: '<b>t</b>', lines: ['Connected "x"@evil & <script>alert(1)</script> for \'y\'.'] });
    expect(html).not.toMatch(/<script>|<b>/);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('&#34;x&#34;@evil &#38;');
  });

  it('forbid framing, loading anything and posting anywhere', () => {
    expect(CONNECT_PAGE_CSP).toContain("default-src 'none'");
    expect(CONNECT_PAGE_CSP).toContain("frame-ancestors 'none'");
    expect(CONNECT_PAGE_CSP).toContain("form-action 'none'");
  });

  it('set a __Host- Secure cookie over https and a plain one on http loopback, both HttpOnly and SameSite=Lax', () => {
    expect(browserCookie(true, 'v', 600)).toBe('__Host-gsc_connect=v; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure');
    expect(browserCookie(false, 'v', 600)).toBe('gsc_connect=v; Path=/; Max-Age=600; HttpOnly; SameSite=Lax');
    const req = { headers: { cookie: 'a=1; __Host-gsc_connect=abc; gsc_connect=def' } } as IncomingMessage;
    expect(readCookie(req, browserCookieName(true))).toBe('abc');
    expect(readCookie(req, browserCookieName(false))).toBe('def');
    expect(readCookie({ headers: {} } as IncomingMessage, 'gsc_connect')).toBeUndefined();
  });
});
