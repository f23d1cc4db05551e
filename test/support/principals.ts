import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServerFactory } from '../../src/mcp/mcp-server.factory.js';
import type { TestClient } from './clients.js';
import type { InProcessServer } from './server.js';

/**
 * A client of the running app that the server knows as `principal`: the app's
 * own McpServerFactory builds its server for that caller, exactly as the HTTP
 * layer does for an authenticated request (authInfo.clientId is the
 * principal), joined to a real 2025-11-25 SDK client by an in-memory
 * transport. Several of these on one app are several people on one server,
 * sharing its state store.
 */
export async function connectAs(server: InProcessServer, principal: string): Promise<TestClient> {
  const factory = server.app.get(McpServerFactory);
  const mcp = factory.create({
    era: 'legacy',
    authInfo: { token: 'in-process', clientId: principal, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 },
  });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverEnd);
  const client = new V1Client({ name: `gsc-test-${principal}`, version: '1.0.0' });
  await client.connect(clientEnd);
  return {
    revision: '2025-11-25',
    dialogs: [],
    raw: client,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as never,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}
