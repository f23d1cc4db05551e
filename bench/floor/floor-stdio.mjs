#!/usr/bin/env node
// The cold-start floor: a bare SDK v2 server with 21 trivial tools over stdio.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { registerFloorTools } from './floor-tools.mjs';

const handle = serveStdio(() => registerFloorTools(new McpServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: {} } })));
process.stdin.on('end', () => void handle.close().then(() => process.exit(0)));
