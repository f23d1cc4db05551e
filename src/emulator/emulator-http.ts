// The HTTP plumbing of the emulator: bounded request bodies, the token
// endpoint's form (or JSON) body, and writing an answer — JSON, or raw bytes
// for the faults that send something other than JSON.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { serialize, type Answer } from './emulator-faults.js';

const BODY_LIMIT = 4 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** google-auth-library posts x-www-form-urlencoded; some clients post JSON, which Google's endpoint also takes. */
export function parseTokenForm(text: string, contentType: string | undefined): Record<string, string> {
  if ((contentType ?? '').includes('json')) {
    try {
      return JSON.parse(text) as Record<string, string>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export function writeAnswer(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.writableEnded) {
    return;
  }
  const payload = answer.raw ? answer.raw.payload : serialize(answer.body);
  const headers: Record<string, string | number> = { ...answer.headers };
  if (answer.status !== 204) {
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (answer.raw) {
    headers['content-type'] = answer.raw.contentType;
  } else if (payload) {
    headers['content-type'] = 'application/json; charset=UTF-8';
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}
