#!/usr/bin/env node
// Thin launcher: the compiled entry point does everything, including the exit code. The V8 settings first
// (src/v8-flags.ts: V8 reads them as it goes, so they can be set here rather than on node's command line).
const { applyV8Flags } = await import('../dist/v8-flags.js');
applyV8Flags();
await import('../dist/cli/main.js');
