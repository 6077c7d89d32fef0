/**
 * A CommonJS dependency loaded on first use. undici (~110 modules), better-sqlite3 and cli-progress are a third of
 * the start-up time (docs/performance.md); a command that never reaches a server, keeps no state or draws no bar
 * does not pay for them. Types still come from a static `import type`.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
