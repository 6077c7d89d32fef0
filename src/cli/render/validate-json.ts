/**
 * validate --json: one JSON object on stdout, streamed so that millions of invalid records need no memory:
 * {"file", "format", "invalidRecords": [...every one...], "rows", "valid", "invalid", "reasons", "output",
 * "rejects", "fieldStats" (with --stats), "paddedRows" (with --pad-short-rows), "durationMs"} — or, if the input turns unreadable midway, the counts so far, "outputWritten"/"rejectsWritten": false and an "error" key.
 */
import { once } from 'node:events';
import type { InvalidRecord, ValidateStats } from '../../core/validate/validate-file.js';
import { cliIo } from '../io.js';
import { errorToJson } from '../output.js';

export class ValidateJsonStream {
  private started = false;
  private first = true;

  constructor(private readonly out: NodeJS.WritableStream = cliIo().stdout) {}

  get hasStarted(): boolean {
    return this.started;
  }

  start(file: string, format: string): void {
    this.started = true;
    this.out.write(`{"file":${JSON.stringify(file)},"format":${JSON.stringify(format)},"invalidRecords":[`);
  }

  invalid(invalid: InvalidRecord): Promise<void> | undefined {
    const record = {
      record: invalid.record,
      line: invalid.line,
      memberId: invalid.memberId ?? null,
      issues: invalid.issues,
    };
    const text = `${this.first ? '' : ','}\n${JSON.stringify(record)}`;
    this.first = false;
    // wait for a slow reader of stdout instead of buffering the whole report
    return this.out.write(text) ? undefined : once(this.out, 'drain').then(() => undefined);
  }

  finish(stats: ValidateStats): void {
    const { rows, valid, invalid, reasons, durationMs } = stats;
    const rest = {
      rows,
      valid,
      invalid,
      reasons,
      duplicateMembers: stats.duplicateMembers,
      omittedCells: stats.omittedCells,
      output: stats.output ?? null,
      rejects: stats.rejects ?? null,
      ...(stats.profile && { fieldStats: stats.profile }),
      ...(stats.paddedRows !== undefined && { paddedRows: stats.paddedRows }),
      durationMs,
    };
    this.out.write(`${this.first ? '' : '\n'}],${JSON.stringify(rest).slice(1)}\n`);
  }

  /**
   * Closes the object after a fatal error, with the counts so far, so stdout stays one valid JSON object. The
   * --output and --rejects asked for were not put in place (a file from before stays): `outputWritten: false`,
   * `rejectsWritten: false`, as import says it.
   */
  fail(
    error: unknown,
    soFar?: { rows: number; valid: number },
    asked: { output?: string; rejects?: string } = {},
  ): void {
    const counts = soFar ? { rows: soFar.rows, valid: soFar.valid, invalid: soFar.rows - soFar.valid } : {};
    const notWritten = {
      ...(asked.output !== undefined && { outputWritten: false }),
      ...(asked.rejects !== undefined && { rejectsWritten: false }),
    };
    const rest = { ...counts, ...notWritten, ...errorToJson(error) };
    this.out.write(`${this.first ? '' : '\n'}],${JSON.stringify(rest).slice(1)}\n`);
  }
}
