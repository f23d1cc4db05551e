import { spawn } from 'node:child_process';
import { cleanEnv, MAIN, startGoogle, verdict } from './common.mjs';

/** The tools/list result exactly as the built server sends it over stdio to a 2025-11-25 client: its own JSON-RPC line, parsed. */
function rawToolsList(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
    const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          child.kill();
          resolve(message.result);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before answering tools/list`)));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    });
  });
}

// Σ name + description + compact inputSchema: what a client that forwards only the input side costs per request.
const cost = (tools) => tools.reduce((n, t) => n + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);

export async function toolListCost() {
  const google = await startGoogle();
  try {
    const all = await rawToolsList(google.env);
    const essential = await rawToolsList({ ...google.env, GSC_ALLOW_TOOLS: 'essential' });
    const a = cost(all.tools);
    const e = cost(essential.tools);
    // The whole result as sent (names, titles, descriptions, annotations, input and output schemas): what Gemini-style clients forward.
    const wholeAll = JSON.stringify(all).length;
    const wholeEssential = JSON.stringify(essential).length;
    const outputs = (tools) => tools.reduce((n, t) => n + JSON.stringify(t.outputSchema ?? {}).length, 0);
    return [
      {
        bar: `tool-list cost, all ${all.tools.length} tools`,
        target: '≤ 11 500 chars',
        measured: `${a} chars (${Math.round(a / all.tools.length)}/tool)`,
        verdict: verdict(a <= 11500),
      },
      {
        bar: `tool-list cost, essential (${essential.tools.length})`,
        target: '≤ 3 000 chars',
        measured: `${e} chars`,
        verdict: verdict(e <= 3000),
      },
      {
        bar: `whole tools/list as sent, all ${all.tools.length}`,
        target: '≤ 24 000 chars',
        measured: `${wholeAll} chars (output schemas ${outputs(all.tools)})`,
        verdict: verdict(wholeAll <= 24000),
      },
      {
        bar: `whole tools/list as sent, essential (${essential.tools.length})`,
        target: '≤ 8 000 chars',
        measured: `${wholeEssential} chars (output schemas ${outputs(essential.tools)})`,
        verdict: verdict(wholeEssential <= 8000),
      },
    ];
  } finally {
    google.emulator.close();
  }
}
