/**
 * The guides must run as written: every `npx memberctl` line of docs/guides/*.md that targets the sandbox is run in
 * order (in-process, as runInProcess runs the command line, with /tmp/demo swapped for a temp folder of that guide), and each must end with
 * the exit code the guide promises (3 where it says some records are invalid; N where the line ends in `# exit N`).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

/** `echo '…' | npx memberctl …`: the quoted text is the command's standard input (a pasted device blob). */
const PIPED = /^echo '([^']*)' \| (npx memberctl .*)$/;

const guidesDir = join(import.meta.dirname, '..', '..', 'docs', 'guides');
const guides = readdirSync(guidesDir)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => ({ name, lines: runnableLines(readFileSync(join(guidesDir, name), 'utf8')) }));

/** The lines a reader would paste: `npx memberctl …`, except those that need a real server's profile. */
function runnableLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => (line.startsWith('npx memberctl ') || PIPED.test(line)) && !line.includes('--profile'));
}

/** Splits a shell line into words (the guides use no quotes), dropping a trailing comment. */
function words(line: string): string[] {
  return line
    .replace(/\s+#.*$/, '')
    .trim()
    .split(/\s+/)
    .slice(2);
}

describe('the guides in docs/guides', () => {
  it('hold the three guides, with at least 12 runnable lines between them', () => {
    expect(guides.map((g) => g.name)).toEqual(
      expect.arrayContaining(['migrating.md', 'nightly-cron.md', 'subscribing-a-test-device.md']),
    );
    expect(guides.reduce((sum, g) => sum + g.lines.length, 0)).toBeGreaterThanOrEqual(12);
  });

  it('the README shows only commands the guides run (so its short versions are run too)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const shown = runnableLines(readme);
    const run = new Set(guides.flatMap((g) => g.lines.map((line) => line.replace(/\s+#.*$/, '').trim())));
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(shown.filter((line) => !run.has(line.trim()))).toEqual([]);
  });

  for (const guide of guides.filter((g) => g.lines.length > 0)) {
    it(`${guide.name}: every sandbox command runs as written, with the exit code the guide says`, {
      timeout: 300_000,
    }, async () => {
      const demo = mkdtempSync(join(tmpdir(), 'memberctl-demo-'));
      const env = isolatedEnv();
      const results: { line: string; code: number | null; expected: number; stderr?: string }[] = [];
      for (const line of guide.lines) {
        const piped = PIPED.exec(line);
        const { code, stderr } = await runInProcess(
          words((piped?.[2] ?? line).replaceAll('/tmp/demo', demo)),
          env,
          piped?.[1],
        );
        const declared = /#\s*exit (\d+)\s*$/.exec(line);
        const expected = declared ? Number(declared[1]) : /mixed\.csv|fix-me\.csv/.test(line) ? 3 : 0;
        results.push({ line, code, expected, ...(code === expected ? {} : { stderr: stderr.slice(-800) }) });
      }
      expect(results.filter((r) => r.code !== r.expected)).toEqual([]);
    });
  }
});
