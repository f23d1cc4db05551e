import { serverWithClient, verdict } from './common.mjs';

async function list(env) {
  const { client, close } = await serverWithClient(env);
  const { tools } = await client.listTools();
  await close();
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
