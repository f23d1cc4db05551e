import { spawn } from 'node:child_process';
import { isolatedEnv, MAIN } from './env.js';

/**
 * The tools/list result exactly as the built binary sends it over stdio to a
 * 2025-11-25 client (initialize, initialized, tools/list), parsed from its
 * own JSON-RPC line: what a client forwards to the model.
 */
export function rawToolsList(env: Record<string, string>): Promise<{ tools: any[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: isolatedEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
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
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before answering tools/list`)));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'size-test', version: '0' } },
    });
  });
}
