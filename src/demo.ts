#!/usr/bin/env node
import { exitOnOldNode } from './common/node-version.js';

// `npm run demo`. The version check comes first, and the demo (Nest, the
// emulator, node:sqlite) is imported only after it.
exitOnOldNode();
await import('./demo-server.js');
