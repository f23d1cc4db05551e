// A small round-robin HTTP proxy in front of server replicas, as a load
// balancer with session affinity would be: a 2025-11-25 session sticks to the
// replica that opened it (learned from the Mcp-Session-Id of the initialize
// answer); everything else (2026-07-28, stateless) goes round robin, to the
// next replica when one refuses the connection. A request cut by a dying
// replica is answered 502 with a JSON-RPC error body. It also knows which
// tools/calls are in flight on each replica, so a test can kill one mid-approval.
import { createServer, request } from 'node:http';

export async function startProxy(upstreams) {
  const sessions = new Map(); // session id → replica index
  const inflight = upstreams.map(() => new Map()); // per replica: request → tool name
  let next = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => void forward(req, res, Buffer.concat(chunks)));
  });
  const fail = (res, status, message) => {
    if (res.headersSent) {
      return void res.destroy();
    }
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };
  const forward = async (req, res, body) => {
    const sessionId = req.headers['mcp-session-id'];
    const sticky = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && sticky === undefined) {
      return fail(res, 404, 'Session not found (proxy)');
    }
    const message = body.length && body[0] === 0x7b ? safeParse(body) : undefined;
    const tool = message?.method === 'tools/call' ? message.params?.name : undefined;
    for (let attempt = 0; attempt < upstreams.length; attempt++) {
      const index = sticky ?? next++ % upstreams.length;
      const target = upstreams[index];
      if (!target.origin) {
        if (sticky !== undefined) {
          return fail(res, 502, `replica ${index} is down: the session is lost; start a new one`);
        }
        continue;
      }
      const sent = await new Promise((done) => {
        const upstream = request(new URL(req.url, target.origin), { method: req.method, headers: req.headers }, (answer) => {
          const id = answer.headers['mcp-session-id'];
          if (typeof id === 'string' && !sessions.has(id)) {
            sessions.set(id, index);
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
          answer.on('close', () => inflight[index].delete(req));
          done(true);
        });
        if (tool) {
          inflight[index].set(req, tool);
        }
        upstream.on('error', (error) => {
          inflight[index].delete(req);
          // Nothing reached the replica: another can take a stateless request.
          if (error.code === 'ECONNREFUSED' && sticky === undefined) {
            return done(false);
          }
          fail(res, 502, `replica ${index} failed: ${error.message}`);
          done(true);
        });
        res.on('close', () => upstream.destroy());
        upstream.end(body);
      });
      if (sent) {
        return;
      }
    }
    fail(res, 503, 'no replica is available');
  };
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    /** Tool calls in flight on replica `index`, by tool name. */
    inflight: (index) => [...inflight[index].values()],
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

function safeParse(buffer) {
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch {
    return undefined;
  }
}
