/** --output: the exact upsert items import would send, one JSON object per line, in input order. */
import type { MemberUpsertItem } from '../schemas/index.js';
import { openOutputFile } from './output-file.js';

export interface ItemsWriter {
  write(item: MemberUpsertItem): Promise<void> | undefined;
  /** Puts the file in place: it is complete. */
  close(): Promise<void>;
  /** Drops the file being written (an earlier file at the path stays as it was). */
  abort(): Promise<void>;
}

export async function openItemsWriter(path: string, force?: boolean): Promise<ItemsWriter> {
  const file = await openOutputFile(path, 'output', { force });
  return {
    write: (item) => file.writeLine(JSON.stringify(item)),
    close: () => file.close(),
    abort: () => file.abort(),
  };
}
