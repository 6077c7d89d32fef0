/** For the lock tests: a run on another host, as its lock file shows it (a beat that changes, or none). */
import { renameSync, writeFileSync } from 'node:fs';

export interface ForeignLock {
  boot?: string;
  pidns?: string;
  start?: number;
  pid: number;
  host: string;
  at: string;
  id: string;
  lease?: number;
}

/** Writes `content` as the lock at `lockPath`; with `beating`, bumps its beat every 50 ms until the returned stop. */
export function foreignHolder(lockPath: string, content: ForeignLock, beating = true): () => void {
  let beat = 0;
  const write = () => {
    writeFileSync(`${lockPath}.fake`, JSON.stringify({ ...content, beat: String(beat++).padStart(10, '0') }));
    renameSync(`${lockPath}.fake`, lockPath); // whole or not at all, as the holder's own beat
  };
  write();
  if (!beating) return () => undefined;
  const timer = setInterval(write, 50);
  return () => clearInterval(timer);
}
