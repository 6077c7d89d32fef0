/** --output: the exact upsert items import would send, one JSON object per line, in input order. */
import type { MemberUpsertItem } from '../schemas/index.js';
import { openOutputFile } from './output-file.js';

export interface ItemsWriter {
  write(item: MemberUpsertItem): Promise<void> | undefined;
  close(): Promise<void>;
}

export async function openItemsWriter(path: string, force?: boolean): Promise<ItemsWriter> {
  const file = await openOutputFile(path, 'output', { force });
  return { write: (item) => file.writeLine(JSON.stringify(item)), close: () => file.close() };
}
