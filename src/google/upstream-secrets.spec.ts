import { describe, expect, it } from '@jest/globals';
import { redactRequestError, redactSecrets, requestSecrets } from './upstream-secrets.js';

describe('upstream secrets', () => {
  it('replaces each secret as written, percent-encoded and JSON-escaped, the longest first, and leaves short strings alone', () => {
    const secrets = ['1//0abc-refresh/token', '1//0abc-refresh/token-and-more', 'short'];
    expect(redactSecrets('a 1//0abc-refresh/token-and-more b 1%2F%2F0abc-refresh%2Ftoken c short', secrets)).toBe(
      'a [redacted] b [redacted] c short',
    );
    expect(redactSecrets('say "x\\"y\\\\z-secret-1"', ['x"y\\z-secret-1'])).toBe('say "[redacted]"');
  });

  it("reads the secrets of a failed request's form and bearer header", () => {
    const error = {
      config: {
        data: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//rt-12345678', client_secret: 'GOCSPX-12345678' }),
        headers: new Headers({ Authorization: 'Bearer ya29.access-12345678' }),
      },
    };
    expect(requestSecrets(error).sort()).toEqual(['1//rt-12345678', 'GOCSPX-12345678', 'ya29.access-12345678']);
    expect(requestSecrets({ config: { body: 'code=4%2F0code-12345678&code_verifier=verifier-12345678' } }).sort()).toEqual([
      '4/0code-12345678',
      'verifier-12345678',
    ]);
    expect(requestSecrets(new Error('no config'))).toEqual([]);
  });

  it("redacts a failed request's error in place: message, answer and the request config it carries", () => {
    const data = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//rt-12345678', client_secret: 'GOCSPX-12345678' });
    const error = {
      message: 'invalid_grant 1//rt-12345678',
      config: { data, headers: new Headers({ Authorization: 'Bearer ya29.access-12345678' }) },
      response: { data: { error: 'invalid_grant', error_description: 'echo GOCSPX-12345678' } },
    };
    redactRequestError(error, requestSecrets(error));
    expect(error.message).toBe('invalid_grant [redacted]');
    expect(error.response.data).toEqual({ error: 'invalid_grant', error_description: 'echo [redacted]' });
    expect(String(error.config.data)).toBe('grant_type=refresh_token&refresh_token=%5Bredacted%5D&client_secret=%5Bredacted%5D');
    expect(error.config.headers.get('authorization')).toBe('[redacted]');
  });
});
