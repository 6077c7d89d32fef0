#!/usr/bin/env node
// Thin launcher: the compiled entry point does everything, including the exit code.
import '../dist/cli/main.js';
