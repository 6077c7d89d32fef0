/**
 * A small input read whole (a file, or standard input with "-"), for values that are not records: the device
 * blob of `subscribe --from`. A missing file, a directory or an unreadable one is an InputError naming it (the
 * same checks as for record input); more than `limitBytes` stops reading, so a wrong pipe cannot fill memory.
 */
import { openInputBytes } from './input-bytes.js';

export type WholeInput = { kind: 'text'; text: string; file: string } | { kind: 'too-large'; file: string };

/** `label` names the input in errors (default: the path, or "stdin"). */
export async function readWholeInput(
  path: string,
  limitBytes: number,
  options: { label?: string; stdin?: NodeJS.ReadableStream } = {},
): Promise<WholeInput> {
  const file = options.label ?? (path === '-' ? 'stdin' : path);
  const stdin = options.stdin;
  const bytes = await openInputBytes({ path, file, gzip: false, stdin });
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (let chunk = await bytes.next(); chunk !== undefined; chunk = await bytes.next()) {
      size += chunk.length;
      if (size > limitBytes) return { kind: 'too-large', file };
      chunks.push(chunk);
    }
    return { kind: 'text', text: Buffer.concat(chunks).toString('utf8'), file };
  } finally {
    await bytes.close();
  }
}
