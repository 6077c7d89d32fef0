/**
 * A top-level JSON array, element by element, in flat memory: the scanner finds each element's bounds and
 * JSON.parse reads that element alone (never the whole file). A malformed element whose brackets balance is one
 * error record and reading goes on; a file that ends inside the array is an InputError naming the line where the
 * unfinished element starts, thrown after the records before it.
 */
import type { InputBytes } from './input-bytes.js';
import { JsonArrayScanner } from './json-array-scanner.js';
import type { SourceRecord } from './source.js';

/** The records of each chunk read come as one array (never empty). */
export async function* readJsonArray(bytes: InputBytes, file: string): AsyncGenerator<SourceRecord[]> {
  const scanner = new JsonArrayScanner(file);
  const ready = scanner.ready;
  try {
    for (let chunk = await bytes.next(); chunk !== undefined; chunk = await bytes.next()) {
      const failure = scanner.scan(chunk);
      // the scanner refills its own array: the batch handed out is a copy
      if (ready.length > 0) yield ready.splice(0);
      if (failure) throw failure;
    }
    const failure = scanner.end();
    if (failure) throw failure;
  } finally {
    await bytes.close();
  }
}
