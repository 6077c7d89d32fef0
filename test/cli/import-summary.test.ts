/** The human summary says what happened in words that fit the numbers: one record is "1 record", nothing sent is not "imported". */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../src/core/import/index.js';
import { renderImportSummary } from '../../src/cli/render/import-summary.js';
import { importRunError } from '../../src/cli/import-outcome.js';
import { formatWait } from '../../src/duration.js';
import type { Output } from '../../src/cli/output.js';

function summary(fields: Partial<ImportSummary>): ImportSummary {
  const empty = { invalid: [], skipped: [], rejected: [], failed: [] };
  return {
    rows: 0,
    invalid: 0,
    unchanged: 0,
    importedCount: 0,
    updatedCount: 0,
    skipped: 0,
    skippedExamples: [],
    rejected: 0,
    failed: 0,
    batches: 0,
    requests: 0,
    retries: 0,
    durationMs: 10,
    topReasons: empty,
    finalBatchSize: 500,
    concurrency: { final: 4, max: 4 },
    warnings: 0,
    paddedRows: 0,
    ...fields,
  };
}

function render(s: ImportSummary, withUnchanged = false, withPadded = false): { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const output: Output = {
    color: new Chalk({ level: 0 }),
    out: (t) => void stdout.push(t),
    err: (t) => void stderr.push(t),
    warn: (t) => void stderr.push(t),
    stderrIsTTY: false,
  };
  renderImportSummary(
    s,
    { file: 'members.csv', target: 'https://api.example.com/', withUnchanged, withPadded },
    output,
  );
  return { stdout, stderr };
}

const verdict = (s: ImportSummary, withUnchanged = false) => render(s, withUnchanged).stdout.at(-1);

describe('the import summary', () => {
  it('a resumed import names the earlier runs as the "resuming from" notice did (trial2: "an earlier run" vs "2")', () => {
    const lines = (resumedRuns: number) => {
      const stdout: string[] = [];
      const output: Output = {
        color: new Chalk({ level: 0 }),
        out: (t) => void stdout.push(t),
        err: (t) => void stdout.push(t),
        warn: (t) => void stdout.push(t),
        stderrIsTTY: false,
      };
      const state = { resumedRecords: 5, resumedRuns, otherShards: 0, refreshed: 0, journalKept: false };
      renderImportSummary(
        summary({ rows: 7, importedCount: 7 }),
        { file: 'members.csv', target: 'https://api.example.com/', state },
        output,
      );
      return stdout.join('\n');
    };
    expect(lines(2)).toContain('resumed: 5 records were settled by 2 earlier runs (counted above, not sent again)');
    expect(lines(1)).toContain('resumed: 5 records were settled by an earlier run (counted above, not sent again)');
  });

  it('one banner, naming the file and the target once', () => {
    const { stdout, stderr } = render(summary({ rows: 2, importedCount: 2, batches: 1, requests: 1 }));
    expect(stdout.filter((line) => line.includes('members.csv'))).toEqual([
      'Import of members.csv to https://api.example.com/',
    ]);
    expect(stderr).toEqual([]);
  });

  it('"1 record", never "1 records"', () => {
    expect(verdict(summary({ rows: 1, failed: 1 }))).toMatch(/^1 record not confirmed\./);
    expect(verdict(summary({ rows: 1, rejected: 1 }))).toMatch(/^Done, 1 record not imported/);
    expect(verdict(summary({ rows: 1, failed: 1, stopReason: 'credentials' }))).toBe(
      'Stopped: the server refused the credentials; 1 record not confirmed.',
    );
    expect(verdict(summary({ rows: 3, failed: 3 }))).toMatch(/^3 records not confirmed\./);
  });

  it('nothing sent is not "every record imported or updated"', () => {
    expect(verdict(summary({ rows: 5, unchanged: 5 }), true)).toBe(
      'Done: every record unchanged since the last confirmed run; nothing was sent.',
    );
    expect(verdict(summary({ rows: 0 }))).toBe('Done: the input held no records; nothing was sent.');
    expect(verdict(summary({ rows: 5, unchanged: 2, updatedCount: 3 }), true)).toBe(
      'Done: every record imported, updated or unchanged.',
    );
    expect(verdict(summary({ rows: 5, importedCount: 5 }))).toBe('Done: every record imported or updated.');
  });

  it('advises the rejects file the input can have: CSV for CSV and workbooks, NDJSON for JSON, both when unknown', () => {
    const advice = (inputFormat?: 'csv' | 'xlsx' | 'json' | 'ndjson') => {
      const stdout: string[] = [];
      const output: Output = {
        color: new Chalk({ level: 0 }),
        out: (t) => void stdout.push(t),
        err: () => undefined,
        warn: () => undefined,
        stderrIsTTY: false,
      };
      const context = { file: 'members', target: 'x', ...(inputFormat ? { inputFormat } : {}) };
      renderImportSummary(summary({ rows: 2, invalid: 1, importedCount: 1 }), context, output);
      return stdout.at(-1)?.match(/Add --rejects (.*) to get them/)?.[1];
    };
    expect([advice('csv'), advice('xlsx'), advice('json'), advice('ndjson'), advice()]).toEqual([
      'fix-me.csv',
      'fix-me.csv',
      'fix-me.ndjson',
      'fix-me.ndjson',
      'fix-me.ndjson (fix-me.csv for CSV input)',
    ]);
  });

  it('a rejects file left as it was (input unreadable midway) is said to be not replaced, never "Wrote"', () => {
    const stdout: string[] = [];
    const output: Output = {
      color: new Chalk({ level: 0 }),
      out: (t) => void stdout.push(t),
      err: () => undefined,
      warn: () => undefined,
      stderrIsTTY: false,
    };
    const context = { file: 'members.csv', target: 'x', rejectsPath: 'fix-me.csv', rejectsKept: true };
    renderImportSummary(summary({ rows: 5000, invalid: 3, importedCount: 4997 }), context, output);
    expect(stdout).toContain(
      'Not replaced: fix-me.csv (the run ended before its rejects were complete; a file from before stays as it was)',
    );
    expect(stdout.join('\n')).not.toContain('Wrote');
  });

  it('--pad-short-rows: says how many rows it padded, under the counts (they are in their buckets already)', () => {
    const padded = summary({ rows: 3, importedCount: 3, paddedRows: 2 });
    expect(render(padded, false, true).stdout).toContain(
      '  2 rows padded (--pad-short-rows): fewer cells than the header, the missing trailing ones read as empty',
    );
    expect(render(summary({ rows: 1, importedCount: 1, paddedRows: 1 }), false, true).stdout.join('\n')).toMatch(
      /  1 row padded \(--pad-short-rows\)/,
    );
    expect(render(padded).stdout.join('\n')).not.toMatch(/padded/);
  });
});

describe('a Retry-After beyond a year', () => {
  const year = 365 * 86_400_000;
  const wait = (retryAfterMs: number) =>
    summary({
      rows: 3,
      failed: 3,
      stopReason: 'server-wait',
      stopMessage: 'the server asked to wait more than a year (Retry-After)',
      serverWait: { retryAfterMs, maxRetryAfterMs: 300_000, status: 429 },
    });

  it('is "more than a year", with no date and no absurd count of days', () => {
    const absurd = Number.MAX_SAFE_INTEGER; // what Retry-After: 99999999999999999999 is read as
    const error = importRunError(wait(absurd), { isSandbox: false }, 'memberctl import f.csv --no-journal')!;
    expect(error.hint).toBe(
      "No run should wait that long: ask the API's operators why the server answers so, then run: memberctl import f.csv --no-journal",
    );
    expect(error.details).toMatchObject({ retryAfter: 'more than a year', until: null });
    const words = render(wait(absurd)).stdout.join('\n') + render(wait(absurd)).stderr.join('\n');
    expect(words).toContain('the server asked to wait more than a year (Retry-After)');
    expect(words).not.toMatch(/ d\b|\+2757/);
    expect(formatWait(year + 1000)).toBe('more than a year');
    expect(formatWait(year)).toBe('365 d');
  });

  it('a wait within a year keeps its date', () => {
    expect(importRunError(wait(99_999_000), { isSandbox: false }, 'again')!.hint).toMatch(
      /^Run again after \d{4}-\d\d-\d\dT/,
    );
  });
});
