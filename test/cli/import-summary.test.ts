/** The human summary says what happened in words that fit the numbers: one record is "1 record", nothing sent is not "imported". */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../src/core/import/index.js';
import { renderImportSummary } from '../../src/cli/render/import-summary.js';
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
