/**
 * A journal and a --state file say what one server has confirmed; read against another server they would skip
 * records it never received. Both record the target they were made against, and a run against another target
 * is refused before anything is sent.
 *
 * A target is named by its base URL (origin and path: two APIs under one host are two targets), or for --sandbox
 * by its data file (kept members: the same file is the same target) or as ephemeral (members discarded after
 * the run: two ephemeral sandboxes are taken as one target, since that is what a user trying things out means).
 */
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';

export const EPHEMERAL_SANDBOX = 'a local sandbox (ephemeral)';

export function targetName(target: { baseUrl: URL } | { sandbox: { dataFile?: string } }): string {
  if ('sandbox' in target)
    return target.sandbox.dataFile
      ? `a local sandbox with data file ${resolve(target.sandbox.dataFile)}`
      : EPHEMERAL_SANDBOX;
  return `${target.baseUrl.origin}${target.baseUrl.pathname}`.replace(/\/+$/, '');
}

/** Throws (exit 2) when a journal or state file was made against another target than this run's. */
export function refuseOtherTarget(what: 'journal' | 'state', path: string, recorded: string, current: string): void {
  if (recorded === current) return;
  const verb = what === 'journal' ? 'was written against' : 'was filled against';
  throw new UsageError(`${what} ${path} ${verb} ${recorded}; this run sends to ${current}`, {
    code: 'target-mismatch',
    hint:
      what === 'journal'
        ? `Resume against ${recorded}, or use --restart to import everything to ${current}.`
        : `Keep one state file per target (e.g. --state members.${current.startsWith('a local sandbox') ? 'sandbox' : 'prod'}.state), or \`memberctl state reset --state ${path}\` to forget it all and bind it to the next target.`,
  });
}
