/**
 * `memberctl template`: the files it writes validate (every field present, the example row valid), CSV and JSON
 * describe the same member, and the limits table in docs/reference/template.md is the one generated from the schemas.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { fieldLimits, fieldLimitsMarkdown, templateColumns } from '../../src/core/template/template.js';
import { buildCsvMapper } from '../../src/core/mapping/csv-mapper.js';
import { jsonToCandidate } from '../../src/core/mapping/json-mapper.js';
import { ADDRESS_FIELDS, MEMBER_FIELDS, memberUpsertItemSchema } from '../../src/schemas/index.js';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const env = isolatedEnv();

describe('memberctl template', () => {
  it('writes a CSV whose header covers every field and whose example row is a valid member', async () => {
    const { code, stdout, stderr } = await runInProcess(['template'], env);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const rows = parse(stdout) as string[][];
    expect(rows).toHaveLength(2);
    const [header, example] = rows as [string[], string[]];
    const covered = new Set(header.map((column) => column.split('.')[0]));
    expect([...covered].sort()).toEqual([...MEMBER_FIELDS].sort());
    for (const field of ADDRESS_FIELDS) expect(header).toContain(`address.${field}`);
    expect(header.some((column) => column.startsWith('metadata.'))).toBe(true);
    expect(header.some((column) => column.startsWith('customProperties.'))).toBe(true);

    const candidate = buildCsvMapper(header, { file: 'template.csv' }).toCandidate({
      record: 1,
      line: 2,
      raw: example,
    });
    expect(candidate.valid ? [] : candidate.issues).toEqual([]);
  });

  it('writes a JSON array of one valid member, the same member as the CSV row', async () => {
    const csv = parse((await runInProcess(['template'], env)).stdout) as string[][];
    const fromCsv = buildCsvMapper(csv[0]!, { file: 't.csv' }).toCandidate({ record: 1, line: 2, raw: csv[1]! });
    const { code, stdout } = await runInProcess(['template', '--format', 'json'], env);
    expect(code).toBe(0);
    const records = JSON.parse(stdout) as unknown[];
    expect(records).toHaveLength(1);
    expect(memberUpsertItemSchema.safeParse(records[0]).success).toBe(true);
    const fromJson = jsonToCandidate({ record: 1, line: 1, raw: records[0] });
    expect(fromJson.valid && fromCsv.valid).toBe(true);
    if (fromJson.valid && fromCsv.valid)
      expect(JSON.parse(JSON.stringify(fromCsv.item))).toEqual(JSON.parse(JSON.stringify(fromJson.item)));
  });

  it('round-trips through `memberctl validate` (CSV and JSON)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-template-'));
    for (const format of ['csv', 'json']) {
      const file = join(dir, `members.${format}`);
      expect((await runInProcess(['template', '--format', format, '--out', file], env)).code).toBe(0);
      const validated = await runInProcess(['validate', file], env);
      expect({ format, code: validated.code, stderr: validated.stderr }).toMatchObject({ format, code: 0 });
    }
  });

  it('writes --out, tells where the limits are, and refuses to overwrite without --force', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-template-'));
    const out = join(dir, 'members.csv');
    const first = await runInProcess(['template', '--out', out], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain(
      `wrote ${out}: ${templateColumns().length} columns and one example record; field limits: memberctl template --fields`,
    );
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe(templateColumns().join(','));

    writeFileSync(out, 'my precious data\n');
    const again = await runInProcess(['template', '--out', out], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`error: cannot write ${out}: the file exists`);
    expect(again.stderr).toContain('hint: pass --force');
    expect(readFileSync(out, 'utf8')).toBe('my precious data\n');
    expect((await runInProcess(['template', '--out', out, '--force', '--format', 'json'], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(1);
  });

  it('refuses an unknown format with the allowed choices', async () => {
    const { code, stderr } = await runInProcess(['template', '--format', 'xml'], env);
    expect(code).toBe(2);
    expect(stderr).toMatch(/argument 'xml' is invalid. Allowed choices are csv, json/);
  });
});

describe('field limits', () => {
  it('are read from the zod schema', () => {
    const byField = new Map(fieldLimits().map((row) => [row.field, row]));
    expect(byField.get('memberId')).toMatchObject({
      type: 'string',
      required: true,
      nullable: false,
      limits: 'length 1 to 36',
    });
    expect(byField.get('email')).toMatchObject({ required: false, nullable: true, limits: 'max length 256' });
    expect(byField.get('address.countryCode')).toMatchObject({ limits: 'max length 2' });
    expect(byField.get('createdAt')).toMatchObject({ required: true, limits: expect.stringContaining('ISO 8601') });
    expect(byField.get('isActive')).toMatchObject({ type: 'boolean', required: true });
    expect(byField.get('metadata')?.type).toBe('object of string → string or null');
  });

  it('`template --fields` prints them, and docs/reference/template.md carries exactly that table', async () => {
    const { stdout } = await runInProcess(['template', '--fields'], env);
    expect(stdout.trim()).toBe(fieldLimitsMarkdown().trim());
    const doc = join(import.meta.dirname, '..', '..', 'docs', 'reference', 'template.md');
    expect(existsSync(doc)).toBe(true);
    expect(readFileSync(doc, 'utf8')).toContain(fieldLimitsMarkdown().trim());
  });
});
