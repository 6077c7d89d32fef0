/**
 * Runs the built CLI the way containers run it, with util-linux `unshare` (needs root): `-u` gives the process a
 * hostname of its own (another host or pod), `--pid --fork` a pid namespace of its own (a container: the CLI is
 * pid 1 there, like the run before it). kill('SIGKILL') on the returned child kills the CLI too (--kill-child).
 */
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { CLI } from './config-cli-helper.js';
import type { Running } from './import-helper.js';

/** Why namespace tests cannot run here, or undefined when they can. */
export const NO_NAMESPACES = (() => {
  const probe = spawnSync('unshare', ['-u', '--pid', '--fork', '--kill-child', 'hostname', 'probe']);
  if (probe.error) return `unshare is not installed (${(probe.error as NodeJS.ErrnoException).code})`;
  return probe.status === 0 ? undefined : `unshare -u --pid --fork fails here: ${probe.stderr.toString().trim()}`;
})();

export interface Namespaces {
  /** The hostname inside (unshare -u). */
  host: string;
  /** A pid namespace of its own (unshare --pid --fork). */
  pid?: boolean;
}

/** `sh -c SCRIPT` inside the namespaces, with `memberctl` a shell function running the built CLI. */
export function spawnShellIn(ns: Namespaces, script: string, env: NodeJS.ProcessEnv, args: string[] = []): Running {
  const flags = ['-u', ...(ns.pid ? ['--pid', '--fork', '--kill-child'] : [])];
  const prelude = 'hostname "$SIM_HOST" && memberctl() { "$SIM_NODE" "$SIM_CLI" "$@"; } && ';
  const child = spawn('unshare', [...flags, 'sh', '-c', prelude + script, 'sh', ...args], {
    env: { ...env, SIM_HOST: ns.host, SIM_NODE: process.execPath, SIM_CLI: CLI },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const result = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    // a killed pod reads as its shell would report it: 128 + the signal's number
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 + constants.signals[signal] : null), stdout, stderr }),
    );
  });
  return { child, result };
}

/** The CLI with `args` inside the namespaces (arguments passed through untouched). */
export function spawnCliIn(ns: Namespaces, args: string[], env: NodeJS.ProcessEnv): Running {
  return spawnShellIn(ns, 'exec "$SIM_NODE" "$SIM_CLI" "$@"', env, args);
}
