// Preloaded into every measured child (node --import): at exit, the process's own peak RSS and CPU time go to
// fd 3, a pipe the bench opens, so the child's stdout and stderr stay untouched. No /usr/bin/time needed.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    const usage = process.resourceUsage();
    const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    writeSync(3, `${JSON.stringify({ maxRssKb: usage.maxRSS, cpuMs })}\n`);
  } catch {
    // not started by the bench: nothing to report to
  }
});
