#!/usr/bin/env node
// Thin launcher: the compiled entry point does everything, including the exit code.
import { setFlagsFromString } from 'node:v8';

// V8 lets the old generation grow to ~4× its live size before a full GC; records in flight at each young-generation
// GC are promoted and pile up as garbage, so import's peak RSS neared 200 MB on 200k rows at 100 ms. Growing by 100%
// between full GCs keeps it near 150 MB; 50% (once chosen for validate) ran 4× the full GCs and cost import ~20%
// of its CPU (docs/performance.md). Unlike the heap-size flags, this one is read at every GC, so it can be set here.
setFlagsFromString('--heap-growing-percent=100');
await import('../dist/cli/main.js');
