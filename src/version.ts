/** memberctl's version, from package.json (dist/ and src/ both sit one level below it). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached) return cached;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    cached = pkg.version ?? 'unknown';
  } catch {
    // a missing package.json must not stop a run: the version is informational
    cached = 'unknown';
  }
  return cached;
}
