// Runs one case in its own Node process: wall time as seen from here; peak RSS and CPU time (user + system, all
// threads) as reported by the child itself. CPU time is what rates are compared on: on a shared machine the wall
// time of two runs minutes apart depends on what else runs, their CPU time much less.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const reporter = fileURLToPath(new URL('./report-rss.mjs', import.meta.url));

/**
 * `cpus`: a CPU list for taskset (e.g. "0"): the process and all its threads kept to those cores.
 * @returns {Promise<{code: number|null, ms: number, cpuMs: number, rssMb: number, stdout: string, stderr: string}>}
 */
export function measureNode(args, { env = {}, cwd, cpus } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const nodeArgs = ['--import', reporter, ...args];
    const [command, commandArgs] = cpus
      ? ['taskset', ['-c', cpus, process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
    const child = spawn(command, commandArgs, {
      cwd,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let report = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdio[3].on('data', (chunk) => (report += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const { maxRssKb = NaN, cpuMs = NaN } = report ? JSON.parse(report) : {};
      resolve({ code, ms, cpuMs, rssMb: Math.round(maxRssKb / 1024), stdout, stderr });
    });
  });
}
