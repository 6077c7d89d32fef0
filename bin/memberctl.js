#!/usr/bin/env node
// Thin launcher: the compiled entry point does everything, including the exit code.
import { setFlagsFromString } from 'node:v8';

// V8 lets the old generation grow to ~4× its live size before a full GC. Streaming a file keeps ~16 MB live,
// but records in flight at each young-generation GC are promoted and pile up as garbage: validate's peak RSS
// was 150-160 MB on 1M rows. Growing by 50% between full GCs (each ~10 ms at that size) keeps it near 100-120
// MB for no measurable CPU (README, Performance). Unlike the heap-size flags, this one is read at every GC, so it
// can be set here, after start.
setFlagsFromString('--heap-growing-percent=50');
await import('../dist/cli/main.js');
