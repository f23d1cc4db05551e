// The one minimum Node.js version (package.json "engines" says the same; a
// spec keeps them equal). 22.13 is where node:sqlite, the embedded state
// store, loads without --experimental-sqlite.
//
// Dependency-free on purpose: every entry point evaluates this before anything
// else loads, so on an older Node the person sees one line naming both
// versions instead of ERR_UNKNOWN_BUILTIN_MODULE from deep inside a bundle.
// For the same reason it uses only what Node 18 and 20 run (no node: imports
// beyond the globals, nothing newer than ES2022 at run time).

export const REQUIRED_NODE = '22.13.0';

/** How long the stdio refusal waits for the client's first request before it gives up (clients write it at once). */
export const FIRST_REQUEST_WAIT_MS = 3000;
/** And how much of stdin it reads at most while looking for it: an initialize is well under 4 KiB. */
const FIRST_REQUEST_MAX_BYTES = 256 * 1024;
/** 2026-07-28's probe (`server/discover`) is answered "unsupported protocol version", the code SDK v2 shows as such. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const INTERNAL_ERROR = -32603;

/** The sentence for an older Node, or undefined when this one is new enough. */
export function nodeVersionProblem(running: string = process.versions.node): string | undefined {
  const have = running.split('.').map(Number);
  const need = REQUIRED_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) > need[i]) {
      return undefined;
    }
    if ((have[i] ?? 0) < need[i]) {
      return `google-search-console-mcp needs Node.js ${REQUIRED_NODE.replace(/\.0$/, '')} or newer (for the built-in node:sqlite); this is Node.js ${running} — install a current Node.js (https://nodejs.org) and run it again`;
    }
  }
  return undefined;
}

/** For a command: one line on stderr and exit 1 on an older Node. */
export function exitOnOldNode(): void {
  const problem = nodeVersionProblem();
  if (problem === undefined) {
    return;
  }
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

/**
 * For the stdio server: the same line on stderr, and, since MCP clients do not
 * show a server's stderr (they say only "Connection closed"), also as the
 * JSON-RPC error answering the client's first request when stdin is a
 * client's pipe — then exit 1. Resolves only when Node is new enough.
 */
export async function exitOnOldNodeOverStdio(args: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const problem = nodeVersionProblem();
  if (problem === undefined) {
    return;
  }
  process.stderr.write(`${problem}\n`);
  if (servesStdio(args, env) && !process.stdin.isTTY) {
    const answer = await answerFirstRequest(process.stdin, problem);
    if (answer !== undefined) {
      // A JSON-RPC response line (the error answering the client's request): stdout still carries only JSON-RPC.
      await new Promise<void>((resolve) => process.stdout.write(answer, () => resolve()));
    }
  }
  process.exit(1);
}

/** Whether this command line would serve MCP over stdio (not --http, GSC_TRANSPORT=http, --help or --version). */
export function servesStdio(args: readonly string[], env: Readonly<Record<string, string | undefined>>): boolean {
  const flags = ['--http', '--help', '-h', '--version'];
  return !args.some((arg) => flags.includes(arg)) && (env.GSC_TRANSPORT ?? '').trim() !== 'http';
}

/** What stdin needs to give: events of a readable stream (process.stdin, or a PassThrough in a spec). */
export interface ByteSource {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(): unknown;
  pause(): unknown;
}

/**
 * Reads newline-delimited JSON-RPC (the stdio transport's framing) until the
 * first request, and returns the line answering it with `problem` as the
 * error: undefined when stdin ends, errs, passes `maxBytes`, or stays silent
 * for `waitMs` first. Notifications and lines that are not JSON-RPC are
 * skipped; a batch gets one error per request in it.
 */
export function answerFirstRequest(
  input: ByteSource,
  problem: string,
  waitMs: number = FIRST_REQUEST_WAIT_MS,
  maxBytes: number = FIRST_REQUEST_MAX_BYTES,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let pending = '';
    let read = 0;
    const finish = (answer: string | undefined) => {
      clearTimeout(timer);
      input.removeAllListeners();
      input.pause();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(undefined), waitMs);
    input.on('data', (chunk) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      read += text.length;
      pending += text;
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const answer = answerLine(pending.slice(0, newline), problem);
        if (answer !== undefined) {
          return finish(answer);
        }
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      if (read > maxBytes) {
        finish(undefined);
      }
    });
    input.on('end', () => finish(undefined));
    input.on('close', () => finish(undefined));
    input.on('error', () => finish(undefined));
  });
}

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { _meta?: Record<string, unknown> };
}

function answerLine(line: string, problem: string): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (Array.isArray(message)) {
    const answers = message.map((m: unknown) => errorFor(m as Message | null, problem)).filter((a) => a !== undefined);
    return answers.length > 0 ? `${JSON.stringify(answers)}\n` : undefined;
  }
  const answer = errorFor(message as Message | null, problem);
  return answer === undefined ? undefined : `${JSON.stringify(answer)}\n`;
}

/** The error answering one request; undefined for a notification, a response or anything that is not JSON-RPC 2.0. */
function errorFor(message: Message | null, problem: string): object | undefined {
  if (message === null || typeof message !== 'object') {
    return undefined;
  }
  const isId = typeof message.id === 'string' || (typeof message.id === 'number' && Number.isFinite(message.id));
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || !isId) {
    return undefined;
  }
  const data = { running: process.versions.node, required: REQUIRED_NODE };
  if (message.method === 'server/discover') {
    // 2026-07-28 has no initialize: its first request is this probe. "Unsupported protocol version" with only a
    // 2025 revision listed makes a v2 client pinned to 2026-07-28 show this message, and one in auto mode fall
    // back to initialize, which gets the same message below. Either way the person reads the sentence.
    const meta = message.params?._meta ?? {};
    const requested = meta['io.modelcontextprotocol/protocolVersion'];
    return {
      jsonrpc: '2.0',
      id: message.id,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: problem,
        data: { ...data, supported: ['2025-11-25'], ...(typeof requested === 'string' ? { requested } : {}) },
      },
    };
  }
  return { jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: problem, data } };
}
