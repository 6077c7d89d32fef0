/**
 * Makes a folder's entries durable: after a file is created or renamed into place, the file's own fsync covers
 * its bytes but not its name, which lives in the folder. Without this a power cut right after a rename can bring
 * back the old name (or none). Used by every writer that creates or renames a file it promises will survive
 * (outputs, the resume journal); the sandbox keeps a copy of its own, as it stands apart.
 */
import { open } from 'node:fs/promises';

export async function syncDirectory(path: string): Promise<void> {
  try {
    const dir = await open(path, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // some file systems refuse to open or sync a folder; the file's own bytes are still synced
  }
}
