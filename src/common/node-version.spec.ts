import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { answerFirstRequest, nodeVersionProblem, REQUIRED_NODE, servesStdio } from './node-version.js';

const REPO = resolve(import.meta.dirname, '../..');

describe('nodeVersionProblem', () => {
  it.each(['20.20.2', '22.12.0', '18.19.1', '22.9.3'])('refuses Node %s, naming it and the required version', (running) => {
    const problem = nodeVersionProblem(running);
    expect(problem).toContain(`Node.js ${running}`);
    expect(problem).toContain('Node.js 22.13 or newer');
    expect(problem).not.toContain('\n');
  });

  it.each(['22.13.0', '22.13.1', '22.20.0', '23.0.0', '24.11.1', '25.2.0'])('accepts Node %s', (running) => {
    expect(nodeVersionProblem(running)).toBeUndefined();
  });

  it('is the version package.json engines and the README name, and no other', () => {
    const pkg = JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    const short = REQUIRED_NODE.replace(/\.0$/, '');
    expect(pkg.engines.node).toBe(`>=${short}`);
    // The MCP Inspector's own minimum is another program's, named in its own paragraph.
    const readme = readFileSync(resolve(REPO, 'README.md'), 'utf8').replace(/\*\*MCP Inspector\*\*[\s\S]*?\n\n/, '');
    const minimums = [...readme.matchAll(/Node(?:\.js)? (?:≥ ?)?(\d+\.\d+)(?: or newer| or later|\+)?/g)].map((m) => m[1]);
    expect(minimums.length).toBeGreaterThan(0);
    expect(new Set(minimums.filter((v) => v.startsWith('22.')))).toEqual(new Set([short]));
  });
});

describe('answerFirstRequest (the stdio refusal on an older Node)', () => {
  const PROBLEM = 'needs a newer Node';
  const feed = (chunks: string[], waitMs = 2000, maxBytes?: number) => {
    const input = new PassThrough();
    const answer = answerFirstRequest(input, PROBLEM, waitMs, maxBytes);
    for (const chunk of chunks) {
      input.write(chunk);
    }
    return answer;
  };

  it('answers the first request, even split across chunks, with the problem as its error', async () => {
    const answer = await feed(['{"jsonrpc":"2.0","id":7,"meth', 'od":"initialize","params":{}}\n{"jsonrpc":"2.0","id":8,"method":"x"}\n']);
    expect(answer?.endsWith('\n')).toBe(true);
    expect(JSON.parse(answer!)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: PROBLEM } });
  });

  it("answers 2026-07-28's server/discover probe as an unsupported protocol version, naming the one a v2 client may fall back to", async () => {
    const probe = {
      jsonrpc: '2.0',
      id: 'p',
      method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    };
    const answer = JSON.parse((await feed([`${JSON.stringify(probe)}\n`]))!);
    expect(answer.error).toMatchObject({ code: -32022, message: PROBLEM, data: { supported: ['2025-11-25'], requested: '2026-07-28' } });
  });

  it('answers every request of a batch, and skips notifications, responses, non-JSON-RPC and unterminated lines', async () => {
    const lines = [
      '{"id":1,"method":"initialize"}',
      '[]',
      '{"jsonrpc":"2.0","id":null,"method":"x"}',
      '{"jsonrpc":"2.0","id":2,"result":{}}',
      '[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":3,"method":"a"},{"jsonrpc":"2.0","id":"4","method":"b"}]',
    ];
    const answer = JSON.parse((await feed([`${lines.join('\n')}\n`]))!) as { id: unknown }[];
    expect(answer.map((a) => a.id)).toEqual([3, '4']);
    expect(await feed(['{"jsonrpc":"2.0","id":1,"method":"initialize"}'], 50)).toBeUndefined();
  });

  it('gives up on silence, on end of input and past its byte bound', async () => {
    expect(await feed([], 30)).toBeUndefined();
    const ended = new PassThrough();
    const answer = answerFirstRequest(ended, PROBLEM, 60_000);
    ended.end('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    expect(await answer).toBeUndefined();
    expect(await feed(['x'.repeat(2048), '\n{"jsonrpc":"2.0","id":1,"method":"initialize"}\n'], 60_000, 1024)).toBeUndefined();
  });

  it('reads stdin only for a stdio server: not with --http, GSC_TRANSPORT=http, --help or --version', () => {
    expect(servesStdio([], {})).toBe(true);
    expect(servesStdio([], { GSC_TRANSPORT: ' stdio ' })).toBe(true);
    for (const args of [['--http'], ['--help'], ['-h'], ['--version']]) {
      expect(servesStdio(args, {})).toBe(false);
    }
    expect(servesStdio([], { GSC_TRANSPORT: 'http ' })).toBe(false);
  });
});
