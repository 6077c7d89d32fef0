/**
 * Who a lock belongs to, and whether that process still runs. A pid means something only inside the pid namespace
 * (a container) and the boot it was read in: two containers on one node may both run memberctl as pid 2, under
 * the same hostname (a Kubernetes Indexed Job's pod keeps `job-index` as its hostname through every retry). So a
 * lock records its holder's hostname, boot id and pid namespace, and its pid is checked only where all three are
 * this process's own ("this machine"); any other lock is a lease, and lease.ts decides by watching it.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface LockOwner {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id, new at every boot. */
  boot?: string;
  /** Linux: the pid namespace, `pid:[4026531836]`; a container has its own. */
  pidns?: string;
  /** Linux: the process's start time (clock ticks since boot), which a reused pid does not share. */
  start?: number;
}

let mine: LockOwner | undefined;

/** This process, as its locks name it. */
export function thisProcess(): LockOwner {
  mine ??= {
    pid: process.pid,
    host: hostname(),
    boot: quietly(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    pidns: quietly(() => readlinkSync('/proc/self/ns/pid')),
    start: quietly(() => startTime('self')),
  };
  return mine;
}

/**
 * Whether `owner`'s pid can be checked here: the same host, boot and pid namespace. A field a lock lacks (one
 * written before they were recorded, or on a system without /proc) is not compared.
 */
export function onThisMachine(owner: LockOwner): boolean {
  const me = thisProcess();
  const same = (theirs: unknown, ours: unknown) => theirs === undefined || ours === undefined || theirs === ours;
  return owner.host === me.host && same(owner.boot, me.boot) && same(owner.pidns, me.pidns);
}

/** For a lock on this machine that is not this process's: does its holder still run? */
export function stillRuns(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // no such process
  }
  // /proc mounted for another pid namespace (unshare --pid without --mount-proc) describes other processes
  if (quietly(() => readlinkSync('/proc/self')) !== String(process.pid)) return true;
  if (owner.start !== undefined) {
    const now = quietly(() => startTime(String(owner.pid)));
    return now === undefined || now === owner.start; // another start time: the pid was reused
  }
  // a lock without a start time: a pid reused by another program does not hold a memberctl lock
  const cmdline = quietly(() => readFileSync(`/proc/${owner.pid}/cmdline`, 'utf8'));
  return cmdline === undefined || cmdline.includes('memberctl');
}

/** Field 22 of /proc/PID/stat; the command name before it may hold spaces and parentheses, so count from the last. */
function startTime(pid: string): number | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  return Number.isSafeInteger(start) ? start : undefined;
}

function quietly<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
