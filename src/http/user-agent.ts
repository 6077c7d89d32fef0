/** The User-Agent sent with every request: memberctl/<version> (node <version>), so servers can tell us apart. */
import { packageVersion } from '../version.js';

export function defaultUserAgent(): string {
  return `memberctl/${packageVersion()} (node ${process.versions.node})`;
}
