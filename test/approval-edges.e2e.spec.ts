import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { accept, modernToolCall } from './support/modern-wire.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// Protocol edges of the guard (issue 8, items 8 and 9): answers that do not
// belong to the revision in use, capabilities a gateway adds per request, and
// an approval whose effect drifted before it was accepted.

const SITE = SEED_PROPERTIES.blog;
const auditLog = join(mkdtempSync(join(tmpdir(), 'audit-edges-')), 'audit.jsonl');
let google: TestGoogle;
let server: InProcessServer;

beforeAll(async () => {
  google = await startGoogle();
  server = await startInProcess({
    ...google.env,
    GSC_APPROVAL_SECRET: 'approval-secret-for-edge-tests-0123456789',
    GSC_AUDIT_LOG: auditLog,
  });
});
afterAll(async () => {
  await server?.close();
  await google?.emulator.close();
});
beforeEach(() => google.emulator.reset());

const deletes = () => google.emulator.apiRequests().filter((r) => r.route === 'sites.delete');
const audit = () =>
  readFileSync(auditLog, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; path: string; era: string });

/** A 2025-11-25 session by hand: initialize with the given capabilities, then one POST; returns the raw SSE/JSON answer. */
async function legacySession(capabilities: Record<string, unknown>) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'edge', version: '0' } },
    }),
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await fetch(server.url, {
    method: 'POST',
    headers: inSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return {
    /** Sends a request and reads the stream until the first message, then lets go. */
    async first(message: Record<string, unknown>): Promise<Record<string, any>> {
      const controller = new AbortController();
      const res = await fetch(server.url, { method: 'POST', headers: inSession, body: JSON.stringify(message), signal: controller.signal });
      const reader = res.body!.getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          break;
        }
        text += Buffer.from(value).toString('utf8');
        const data = /^data: (.+)$/m.exec(text);
        if (data) {
          controller.abort();
          return JSON.parse(data[1]) as Record<string, any>;
        }
      }
      return JSON.parse(text) as Record<string, any>;
    },
    close: () => fetch(server.url, { method: 'DELETE', headers: inSession }),
  };
}

describe('a 2025-11-25 caller is asked by push, never by an answer it supplies', () => {
  it('a 2026 approval state plus accept, sent inside a 2025 session, is no answer: the dialog is pushed and nothing is deleted', async () => {
    const asked = await modernToolCall(server.url, 'delete_site', { site_url: SITE });
    const state = asked.body.result.requestState as string;
    const session = await legacySession({ elicitation: { form: {} } });
    try {
      const first = await session.first({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'delete_site', arguments: { site_url: SITE }, requestState: state, inputResponses: accept },
      });
      expect(first.method).toBe('elicitation/create');
      expect(deletes()).toHaveLength(0);
    } finally {
      await session.close();
    }
  });
});

describe('behind a gateway that adds 2026-style capabilities to a 2025 connection', () => {
  it('decides by the connection’s own capabilities: the token path, said plainly, and audited as what happened', async () => {
    const before = audit().length;
    const session = await legacySession({});
    try {
      const answer = await session.first({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: {
          name: 'delete_site',
          arguments: { site_url: SITE },
          _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
        },
      });
      expect(answer.result.isError).toBeFalsy();
      expect(answer.result.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
      expect(answer.result.content[0].text).toMatch(
        /the client \(or a gateway between it and this server\) did not declare the MCP elicitation capability/,
      );
      expect(
        audit()
          .slice(before)
          .map((e) => `${e.event}/${e.path}/${e.era}`),
      ).toEqual(['token_issued/token/2025-11-25']);
    } finally {
      await session.close();
    }
  });
});

describe('an owner approval binds its effect, not only its arguments', () => {
  const WWW_ID = 'https%3A%2F%2Fwww.example.com%2F';
  // The credential keeps its own ownership (it is an owner of the seeded resources): only webmaster@ is removed.
  const owners = () => ['owner@example.com', google.clientEmail];

  it('dialog (2026-07-28): a co-owner added before the accept arrives means a fresh question, and nobody is removed', async () => {
    const asked = await modernToolCall(server.url, 'update_site_owners', { id: WWW_ID, owners: owners() });
    expect(asked.body.result.resultType).toBe('input_required');
    expect(asked.body.result.inputRequests.approval.params.message).toContain('- Losing ownership: "webmaster@example.com"');
    const resource = google.emulator.state.resources.get('https://www.example.com/')!;
    resource.owners = [...resource.owners, 'coowner@example.com'];
    const accepted = await modernToolCall(
      server.url,
      'update_site_owners',
      { id: WWW_ID, owners: owners() },
      { requestState: asked.body.result.requestState, inputResponses: accept },
    );
    expect(accepted.body.result.resultType).toBe('input_required');
    expect(accepted.body.result.inputRequests.approval.params.message).toMatch(
      /- Losing ownership: "webmaster@example.com", "coowner@example.com"/,
    );
    expect(google.emulator.apiRequests().filter((r) => r.route === 'webResource.update' || r.route === 'webResource.patch')).toHaveLength(
      0,
    );
    expect(google.emulator.state.resources.get('https://www.example.com/')!.owners).toContain('coowner@example.com');
  });

  it('token path: a co-owner added between the two calls means a fresh token that says why, and the old one changes nothing', async () => {
    const tokenClient = await connectHttp(server.url, { revision: '2026-07-28' });
    try {
      const first = await tokenClient.call('update_site_owners', { id: WWW_ID, owners: owners() });
      expect(first.structuredContent).toMatchObject({ outcome: 'token_issued' });
      expect(text(first)).toContain('Losing ownership: "webmaster@example.com"');
      const resource = google.emulator.state.resources.get('https://www.example.com/')!;
      resource.owners = [...resource.owners, 'coowner@example.com'];
      const second = await tokenClient.call('update_site_owners', {
        id: WWW_ID,
        owners: owners(),
        confirm_token: first.structuredContent!.confirm_token,
      });
      expect(second.isError).toBeFalsy();
      expect(second.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
      expect(second.structuredContent!.confirm_token).not.toBe(first.structuredContent!.confirm_token);
      expect(text(second)).toMatch(/no longer the change this call would make/);
      expect(text(second)).toContain('Losing ownership: "webmaster@example.com", "coowner@example.com"');
      expect(google.emulator.apiRequests().filter((r) => r.route === 'webResource.update')).toHaveLength(0);
      const third = await tokenClient.call('update_site_owners', {
        id: WWW_ID,
        owners: owners(),
        confirm_token: second.structuredContent!.confirm_token,
      });
      expect(third.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
      expect(google.emulator.apiRequests().filter((r) => r.route === 'webResource.update')).toHaveLength(1);
    } finally {
      await tokenClient.close();
    }
  });

  it('dialog (2025-11-25, pushed): the person accepts what they were shown; the owners drift meanwhile; they are asked again', async () => {
    let round = 0;
    const person = await connectHttp(server.url, {
      revision: '2025-11-25',
      elicit: () => {
        round++;
        if (round === 1) {
          const resource = google.emulator.state.resources.get('https://www.example.com/')!;
          resource.owners = [...resource.owners, 'late@example.com'];
          return { action: 'accept', content: { confirm: true } };
        }
        return { action: 'decline' };
      },
    });
    try {
      const result = await person.call('update_site_owners', { id: WWW_ID, owners: owners() });
      expect(person.dialogs).toHaveLength(2);
      expect(person.dialogs[1]).toContain('"late@example.com"');
      expect(result.structuredContent).toMatchObject({ executed: false, outcome: 'declined' });
      expect(google.emulator.apiRequests().filter((r) => r.route === 'webResource.update')).toHaveLength(0);
    } finally {
      await person.close();
    }
  });
});
