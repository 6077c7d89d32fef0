/**
 * The README's guides must run as written: every `npx memberctl` line of README.md that targets the sandbox is run
 * in order (as `node bin/memberctl.js`, with /tmp/demo swapped for a temp folder), and each must end with the exit code the guide promises (3 where it says some records are invalid).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from './config-cli-helper.js';

const guide = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** Splits a shell line into words (the guide uses no quotes), dropping a trailing comment. */
function words(line: string): string[] {
  return line.replace(/\s+#.*$/, '').trim().split(/\s+/).slice(2);
}

describe('the README guides', () => {
  it('every sandbox command runs as written, with the exit code the guide says', { timeout: 300_000 }, async () => {
    const demo = mkdtempSync(join(tmpdir(), 'memberctl-demo-'));
    const lines = guide.split('\n').filter((line) => line.startsWith('npx memberctl ') && !line.includes('--profile'));
    expect(lines.length).toBeGreaterThanOrEqual(12);
    const env = isolatedEnv();
    const results: { line: string; code: number | null; expected: number; stderr?: string }[] = [];
    for (const line of lines) {
      const args = words(line.replaceAll('/tmp/demo', demo));
      const { code, stderr } = await runCli(args, env);
      const expected = /mixed\.csv|fix-me\.csv/.test(line) ? 3 : 0;
      results.push({ line, code, expected, ...(code === expected ? {} : { stderr: stderr.slice(-800) }) });
    }
    expect(results.filter((r) => r.code !== r.expected)).toEqual([]);
  });
});
