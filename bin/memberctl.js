#!/usr/bin/env node
// Thin launcher: the compiled entry point does everything, including the exit code. The heap settings first
// (src/heap-flags.ts: V8 reads them at every GC, so they can be set here rather than on node's command line).
const { applyHeapFlags } = await import('../dist/heap-flags.js');
applyHeapFlags();
await import('../dist/cli/main.js');
