#!/usr/bin/env -S node --max-semi-space-size=16
// --max-semi-space-size=16: without pointer compression (Node's builds), V8 lets
// the young generation grow to 2 × 64 MiB once many objects outlive a scavenge,
// e.g. a burst of 2025-11-25 sessions, and the process keeps that RSS: the first
// 1 000 sessions after warm-up cost 57 KiB each of RSS for 12 KiB of heap. At
// 16 MiB (V8's size with pointer compression) they cost ~11 KiB (PRODUCT §10).
// The Dockerfile's ENTRYPOINT passes the same flag; bench/ reads it from here.
// Started without it (`node dist/main.js`), capYoungGeneration holds the young
// generation to the same size at run time.
import module from 'node:module';
import { exitOnOldNodeOverStdio } from './common/node-version.js';
import { capYoungGeneration } from './common/young-generation.js';

// First, before the server's modules load: on an older Node one line on stderr
// and, to a client on stdin, as the error answering its first request; exit 1.
await exitOnOldNodeOverStdio(process.argv.slice(2), process.env);
capYoungGeneration();

// Desktop clients start this process often (v2 clients even spawn a throw-away
// probe first), so start-up is a feature: compiled code is cached on disk
// between runs, and the server itself is one bundled module (see
// scripts/bundle.mjs) rather than ~1 500 files to resolve.
module.enableCompileCache?.();
const server = './cli.bundle.mjs';
await import(server);
