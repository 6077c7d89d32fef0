/**
 * `"onInvalid": "omit"` (issue 24 item 5): an optional field's bad cell is left out and counted, not the whole
 * record; refused on required fields; exact counts in validate.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { issuesOf, usageMessage } from './mapping-helpers.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-omit-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

const RULES = {
  columns: {
    Id: 'memberId',
    Phone: { field: 'phone', convert: 'e164', onInvalid: 'omit' },
    Mail: { field: 'email', onInvalid: 'omit' },
    Active: 'isActive',
  },
  fields: { createdAt: { value: '2024-01-01T00:00:00Z' } },
};
const HEADERS = ['Id', 'Phone', 'Mail', 'Active'];

function csvRow(cells: Record<string, string>) {
  const mapper = createRecordMapper('csv', HEADERS, { file: 'x.csv', mapping: parseMapping(RULES, 'm.json') });
  return mapper.toCandidate({ record: 1, line: 7, raw: HEADERS.map((h) => cells[h] ?? '') });
}

describe('"onInvalid": "omit"', () => {
  it('a bad phone (the rule) or a too long e-mail (the schema) is left out; the record is sent without it', () => {
    const c = csvRow({ Id: 'm1', Phone: '+1 555 010 0100', Mail: `${'x'.repeat(300)}@example.com`, Active: 'yes' });
    expect(c.valid).toBe(true);
    if (!c.valid) return;
    expect(c.item).toEqual({ memberId: 'm1', isActive: true, createdAt: '2024-01-01T00:00:00Z' });
    expect(c.omitted?.map((o) => o.path)).toEqual(['email', 'phone']);
    expect(c.omitted?.find((o) => o.path === 'phone')?.message).toContain('not a valid number for calling code +1');
    // a good cell is sent as usual, and nothing is counted
    const good = csvRow({ Id: 'm2', Phone: '+47 912 34 567', Active: 'yes' });
    expect(good).toMatchObject({ valid: true, item: { phone: '+4791234567' } });
    expect(good.valid && good.omitted).toBeFalsy();
  });

  it('a record with any other problem stays invalid, listing every problem, the omittable ones too', () => {
    expect(issuesOf(csvRow({ Id: 'm1', Phone: '+999 1', Active: 'maybe' }))).toEqual([
      'phone: "+999 1": its country calling code is not one any country has (column "Phone")',
      'isActive: expected true/false, yes/no, y/n or 1/0, got "maybe" (column "Active")',
    ]);
  });

  it('JSON records too', () => {
    const mapping = parseMapping(
      { columns: { tel: { field: 'phone', convert: 'e164', onInvalid: 'omit' } } },
      'm.json',
    );
    const mapper = createRecordMapper('ndjson', undefined, { file: 'x.ndjson', mapping });
    const c = mapper.toCandidate({
      record: 1,
      line: 3,
      raw: { memberId: 'j1', isActive: true, createdAt: '2024-01-01T00:00:00Z', tel: 'call me' },
    });
    expect(c).toMatchObject({ valid: true, item: { memberId: 'j1' }, omitted: [{ path: 'phone' }] });
    expect(c.valid && 'phone' in c.item).toBe(false);
  });

  it('is refused on a required field, on a "value" rule, and misspelt with a did-you-mean', () => {
    const at = (json: unknown) => usageMessage(() => parseMapping(json, 'm.json'));
    expect(at({ columns: { Id: { field: 'memberId', onInvalid: 'omit' } } })).toContain(
      'columns["Id"]: "onInvalid": "omit" leaves a field out, and memberId is required: a record without it cannot be sent',
    );
    expect(at({ fields: { createdAt: { firstOf: ['A', 'B'], onInvalid: 'omit' } } })).toContain(
      'createdAt is required',
    );
    expect(at({ fields: { phone: { value: '+4791234567', onInvalid: 'omit' } } })).toContain(
      '"value" reads no cell, so it takes no "onInvalid"',
    );
    expect(at({ columns: { P: { field: 'phone', onInvalid: 'omitt' } } })).toContain(
      'unknown onInvalid "omitt" (did you mean "omit"?); expected one of refuse, omit',
    );
  });

  it('validate counts each left-out cell by field, exactly, with the first lines', async () => {
    const path = join(dir, 'phones.csv');
    const lines = ['Id,Phone,Mail,Active'];
    const bad: number[] = [];
    for (let r = 1; r <= 500; r++) {
      const wrong = r % 7 === 3 && bad.length < 69;
      if (wrong) bad.push(r + 1);
      lines.push(
        `m${r},${wrong ? '+1 555 010 0100' : '+47 912 34 567'},m${r}@example.com,${r === 250 ? 'maybe' : 'yes'}`,
      );
    }
    await writeFile(path, `${lines.join('\n')}\n`);
    const map = join(dir, 'map.json');
    await writeFile(map, JSON.stringify(RULES));
    const stats = await validateFile({ path, mapFile: map });
    expect(stats).toMatchObject({ rows: 500, valid: 499, invalid: 1 });
    expect(stats.omittedCells).toEqual({
      phone: {
        cells: 69,
        lines: bad.slice(0, 5),
        firstReason: expect.stringContaining('"+1 555 010 0100": not a valid number for calling code +1'),
      },
    });
  });
});
