import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';

export interface ProxiedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the proxy passed back to the client (for a cut response: only what got through). */
  forwarded: string;
  cut: boolean;
}

export interface CuttingProxy {
  /** e.g. http://127.0.0.1:54321/mcp */
  readonly url: string;
  readonly requests: ProxiedRequest[];
  /**
   * The next request whose body matches is answered up to and including its
   * `events`-th SSE event; then the connection drops, both towards the client
   * and towards the server, as a network cut does.
   */
  cutNext(match: (body: string) => boolean, events: number): void;
  close(): Promise<void>;
}

/** A plain HTTP proxy in front of one server, which can cut one streamed response mid-way. */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  let armed: { match: (body: string) => boolean; events: number } | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const record: ProxiedRequest = { method: req.method ?? 'GET', headers: req.headers, body, forwarded: '', cut: false };
      requests.push(record);
      const cut = armed && armed.match(body) ? armed : undefined;
      if (cut) {
        armed = undefined;
      }
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          let seen = 0;
          answer.on('data', (chunk: Buffer) => {
            if (record.cut) {
              return;
            }
            let text = chunk.toString('utf8');
            if (cut) {
              let end = -1;
              for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n', at + 2)) {
                if (++seen === cut.events) {
                  end = at + 2;
                  break;
                }
              }
              if (end >= 0) {
                text = text.slice(0, end);
                record.cut = true;
              }
            }
            record.forwarded += text;
            res.write(text);
            if (record.cut) {
              // Let the bytes leave, then drop both connections without a clean end of stream.
              res.socket?.end(() => res.socket?.destroy());
              out.destroy();
            }
          });
          answer.on('end', () => res.end());
          answer.on('error', () => res.destroy());
        },
      );
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    requests,
    cutNext: (match, events) => void (armed = { match, events }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
