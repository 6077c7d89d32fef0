/**
 * --data FILE: the store on disk as NDJSON, one record per line, ending with a trailer that counts them.
 * Written to a temp file beside the target, fsynced, then renamed over it: a reader (or a restart after kill -9)
 * sees the old complete file or the new complete file, never a torn one. Written in ~1 MiB chunks, so a million
 * members never become one giant string and the event loop keeps answering requests between chunks.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { SandboxStore, Subscription } from './store.js';

const FORMAT = 'memberctl-sandbox-store';
const FORMAT_VERSION = 1;
const CHUNK_CHARS = 1 << 20;

export class StoreFileError extends Error {
  override name = 'StoreFileError';
}

/** `.store.ndjson.<pid>.<hex>.tmp`: the temp file saveStore writes before its rename. */
function tempName(file: string, pid: number): string {
  return `.${basename(file)}.${pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/**
 * Temp files a sandbox killed mid-save left beside the store: removed, but only those whose writer is gone
 * (another sandbox still running on the same folder may be writing its own).
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const prefix = `.${basename(file)}.`;
  const removed: string[] = [];
  for (const name of await readdir(dirname(file)).catch(() => [] as string[])) {
    const pid = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined || isRunning(Number(pid))) continue;
    await rm(join(dirname(file), name), { force: true });
    removed.push(name);
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

export async function saveStore(store: SandboxStore, file: string): Promise<void> {
  const temp = join(dirname(file), tempName(file, process.pid));
  const handle = await open(temp, 'w', 0o600);
  try {
    let buffer = `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, savedAt: new Date().toISOString() })}\n`;
    const flush = async () => {
      await handle.write(buffer);
      buffer = '';
    };
    // Counted while writing: requests keep mutating the Maps between chunks, and the trailer must match the lines.
    let members = 0;
    let erased = 0;
    let subscriptions = 0;
    for (const json of store.members.values()) {
      buffer += `{"member":${json}}\n`;
      members++;
      if (buffer.length >= CHUNK_CHARS) await flush();
    }
    for (const memberId of store.erased) {
      buffer += `${JSON.stringify({ erased: memberId })}\n`;
      erased++;
      if (buffer.length >= CHUNK_CHARS) await flush();
    }
    for (const subscription of store.subscriptions.values()) {
      buffer += `${JSON.stringify({ subscription })}\n`;
      subscriptions++;
    }
    buffer += `${JSON.stringify({ end: { members, erased, subscriptions } })}\n`;
    await flush();
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
  await syncDirectory(dirname(file));
}

/** Makes the rename itself durable; some platforms cannot open a directory, which is fine to ignore. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/** Loads a store file into `store`; a missing file is an empty store, a damaged one an error naming the line. */
export async function loadStore(store: SandboxStore, file: string): Promise<boolean> {
  let stream;
  try {
    stream = createReadStream(file, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => stream!.once('open', () => resolve()).once('error', reject));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StoreFileError(`cannot read sandbox store ${file}: ${(error as Error).message}`);
  }
  let line = 0;
  let ended = false;
  const seen = { members: 0, erased: 0, subscriptions: 0 };
  const fail = (why: string) => new StoreFileError(`sandbox store ${file}, line ${line}: ${why}`);
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line++;
    if (text === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw fail('not JSON (the file was edited or is not a sandbox store)');
    }
    if (line === 1) {
      if (record.format !== FORMAT) throw fail(`not a sandbox store (expected format "${FORMAT}")`);
      if (record.version !== FORMAT_VERSION) throw fail(`unsupported store version ${String(record.version)}`);
      continue;
    }
    if (ended) throw fail('data after the end trailer');
    if (record.member !== undefined) {
      const member = record.member as { memberId?: unknown };
      if (typeof member !== 'object' || member === null || typeof member.memberId !== 'string')
        throw fail('member without memberId');
      // The line is `{"member":<json>}`: keep the member's JSON text as written, no re-serialisation.
      store.members.set(member.memberId, text.startsWith('{"member":') ? text.slice(10, -1) : JSON.stringify(member));
      seen.members++;
    } else if (typeof record.erased === 'string') {
      store.erased.add(record.erased);
      seen.erased++;
    } else if (record.subscription !== undefined) {
      store.restoreSubscription(record.subscription as Subscription);
      seen.subscriptions++;
    } else if (record.end !== undefined) {
      const end = record.end as { members?: number; erased?: number; subscriptions?: number };
      if (end.members !== seen.members || end.erased !== seen.erased || end.subscriptions !== seen.subscriptions) {
        throw fail('counts in the end trailer do not match the records (file damaged)');
      }
      ended = true;
    } else {
      throw fail('unknown record');
    }
  }
  if (line === 0) throw new StoreFileError(`sandbox store ${file} is empty`);
  if (!ended) throw fail('no end trailer: the file is incomplete');
  // A member erased while a save was running may have been written before its erasure: erasure wins.
  for (const memberId of store.erased) store.members.delete(memberId);
  return true;
}
