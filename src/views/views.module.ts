import { Module } from '@nestjs/common';
import { ViewResources } from './views.resources.js';

/** The MCP Apps views (ui:// resources); the tools that link them and the app-only tools live in their domains. */
@Module({ providers: [ViewResources] })
export class ViewsModule {}
