import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cleanEnv, dist, verdict } from './common.mjs';

async function list(env) {
  const { loadConfig } = await dist('config/config.js');
  const { startHttpServer } = await dist('http-server.js');
  const { StderrLogger } = await dist('common/stderr-logger.js');
  const logger = new StderrLogger();
  logger.setLogLevels(['error']);
  const { app, origin } = await startHttpServer(loadConfig(cleanEnv({ GSC_HTTP_PORT: '0', GSC_TRANSPORT: 'http', ...env })), logger);
  const client = new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  const { tools } = await client.listTools();
  await client.close();
  await app.close();
  return tools;
}

const cost = (tools) => tools.reduce((n, t) => n + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);

export async function toolListCost() {
  const all = await list({});
  const essential = await list({ GSC_ALLOW_TOOLS: 'essential' });
  const a = cost(all);
  const e = cost(essential);
  return [
    { bar: `tool-list cost, all ${all.length} tools`, target: '≤ 11 500 chars', measured: `${a} chars (${Math.round(a / all.length)}/tool)`, verdict: verdict(a <= 11500) },
    { bar: `tool-list cost, essential (${essential.length})`, target: '≤ 3 000 chars', measured: `${e} chars`, verdict: verdict(e <= 3000) },
  ];
}
