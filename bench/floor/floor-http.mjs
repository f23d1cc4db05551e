#!/usr/bin/env node
// The HTTP floor: the same bare SDK v2 server, served by createMcpHandler over
// node:http, its five load-mix tools making the same Google requests as ours with
// the same client libraries (a service-account JWT whose token requests go to
// GSC_OAUTH_TOKEN_URL, Search Console at GSC_API_ROOT_URL). A new McpServer per
// request, as createMcpHandler asks of a factory. Prints "floor serving <url>" on stderr.
import { createServer } from 'node:http';
import { searchconsole } from '@googleapis/searchconsole';
import { JWT } from 'google-auth-library';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { registerFloorTools } from './floor-tools.mjs';

const key = JSON.parse(process.env.GSC_SERVICE_ACCOUNT_KEY);
const tokenUrl = new URL(process.env.GSC_OAUTH_TOKEN_URL);
const auth = new JWT({ email: key.client_email, key: key.private_key, scopes: ['https://www.googleapis.com/auth/webmasters'] });
auth.transporter.interceptors.request.add({
  resolved: async (options) => {
    if (new URL(String(options.url)).origin === 'https://oauth2.googleapis.com') {
      options.url = tokenUrl;
    }
    return options;
  },
});
const sc = searchconsole({ version: 'v1', auth, rootUrl: `${process.env.GSC_API_ROOT_URL}/`, retry: false });

const handler = toNodeHandler(
  createMcpHandler(() => registerFloorTools(new McpServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: {} } }), sc)),
);
const server = createServer((req, res) => {
  if (new URL(req.url ?? '/', 'http://localhost').pathname === '/mcp') {
    return void handler(req, res);
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`floor serving http://127.0.0.1:${server.address().port}/mcp\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
