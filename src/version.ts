/** memberctl's version, from package.json (dist/ and src/ both sit one level below it). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/**
 * The docs folder of this installation: the npm package ships docs/ (package.json "files"), so the `docs/…` paths
 * that help texts and hints name are files here, wherever memberctl is installed.
 */
export function packageDocs(): string {
  return fileURLToPath(new URL('../docs/', import.meta.url));
}
