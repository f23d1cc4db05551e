// Preloaded into a server under measurement (node --import): answers "memory"
// on the IPC channel with process.memoryUsage() after a full GC. Not part of
// the product; only bench/ starts a server with it.
process.on('message', (message) => {
  if (message !== 'memory') {
    return;
  }
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.(process.memoryUsage());
});
// The IPC channel must not keep the server alive on its own.
process.channel?.unref();
