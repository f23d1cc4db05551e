import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { McpModule } from '../mcp/mcp.module.js';
import { ConnectionsService } from './connections.service.js';
import { ConnectionsTools } from './connections.tools.js';

/** list_google_accounts and disconnect_google_account: registered only in connected mode (their @Tool says connectedOnly). */
@Module({ providers: [ConnectionsService, ConnectionsTools] })
export class ConnectionsModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(ConnectionsModule, () => [McpModule.in(graph)]);
  }
}
