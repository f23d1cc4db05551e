import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Google's token revocation endpoint (POST, the token in the form body) as a
 * local HTTP server that answers as a spec tells it: 200, 400 invalid_token,
 * a 5xx. It records the tokens it was sent.
 */
export interface RevokeEndpoint {
  readonly url: string;
  /** Tokens posted, oldest first. */
  readonly revoked: string[];
  answer(status: number, body?: unknown): void;
  close(): Promise<void>;
}

export async function startRevokeEndpoint(): Promise<RevokeEndpoint> {
  let reply = { status: 200, body: {} as unknown };
  const revoked: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      revoked.push(new URLSearchParams(body).get('token') ?? '');
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/revoke`,
    revoked,
    answer: (status, body = {}) => (reply = { status, body }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
