#!/usr/bin/env node
import module from 'node:module';
import { exitOnOldNode } from './common/node-version.js';

// First, before the server's modules load: on an older Node one line, exit 1.
exitOnOldNode();

// Desktop clients start this process often (v2 clients even spawn a throw-away
// probe first), so start-up is a feature: compiled code is cached on disk
// between runs, and the server itself is one bundled module (see
// scripts/bundle.mjs) rather than ~1 500 files to resolve.
module.enableCompileCache?.();
const server = './cli.bundle.mjs';
await import(server);
