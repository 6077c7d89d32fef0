/** The User-Agent sent with every request: memberctl/<version> (node <version>), so servers can tell us apart. */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function defaultUserAgent(): string {
  if (cached) return cached;
  let version = 'unknown';
  try {
    // dist/http/user-agent.js and src/http/user-agent.ts both sit two levels below package.json.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    version = pkg.version ?? version;
  } catch {
    // A missing package.json must not stop a request; the version is informational.
  }
  cached = `memberctl/${version} (node ${process.versions.node})`;
  return cached;
}
