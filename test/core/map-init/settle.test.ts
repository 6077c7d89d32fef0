/** Settling map init's decisions (what --interactive does with each answer): checked at once, written as by hand. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initMapping } from '../../../src/core/map-init/map-init.js';
import { closeDecision, settleDecision } from '../../../src/core/map-init/settle.js';
import { parseMapping } from '../../../src/core/mapping/index.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-settle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function init(text: string) {
  const path = join(dir, `f${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(path, text);
  const result = await initMapping({ path });
  return { ...result, headers: result.proposals.map((p) => p.column) };
}

describe('settling decisions', () => {
  it('a zone must be a real one; once every question is answered the mapping runs', async () => {
    const { mapping, decisions, headers } = await init('id,Active,Joined\nm-1,yes,2024-01-05 10:00\n');
    const [zone] = decisions;
    expect(zone?.kind).toBe('timeZone');
    expect(settleDecision(mapping, zone!, { kind: 'timeZone', zone: 'Europe/Olso' }, headers)).toMatch(
      /not a time zone/,
    );
    expect(settleDecision(mapping, zone!, { kind: 'timeZone', zone: 'Europe/Oslo' }, headers)).toBeUndefined();
    closeDecision(mapping, zone!.key);
    expect(mapping.decisions).toBeUndefined();
    expect(mapping.columns.Joined).toEqual({ field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'Europe/Oslo' });
    expect(() => parseMapping(mapping, 'm.json')).not.toThrow();
  });

  it('another column for memberId must be a header of the file; the proposal it replaces is undone', async () => {
    const { mapping, decisions, headers } = await init(
      'Email,Code,Active,Joined\na@example.com,K-1,yes,2024-01-05\nb@example.com,K-2,no,2024-01-06\n',
    );
    const id = decisions.find((d) => d.field === 'memberId')!;
    expect(mapping.columns.Email).toEqual(['memberId', 'email']);
    expect(settleDecision(mapping, id, { kind: 'column', column: 'Kode' }, headers)).toMatch(
      /not a header of the file/,
    );
    expect(settleDecision(mapping, id, { kind: 'column', column: 'Code' }, headers)).toBeUndefined();
    expect(mapping.columns).toMatchObject({ Email: 'email', Code: 'memberId' });
  });

  it('a constant join date must be a date-time with an offset; a format must read the cells', async () => {
    const { mapping, decisions, headers } = await init('id,Active\nm-1,yes\n');
    const joined = decisions.find((d) => d.field === 'createdAt')!;
    expect(settleDecision(mapping, joined, { kind: 'value', value: '2024-01-01' }, headers)).toMatch(/with an offset/);
    expect(settleDecision(mapping, joined, { kind: 'value', value: '2024-01-01T00:00:00Z' }, headers)).toBeUndefined();
    expect(mapping.fields.createdAt).toEqual({ value: '2024-01-01T00:00:00Z' });
    const dated = await init('id,Active,Since\nm-1,yes,05/01/2021\nm-2,no,07/02/2021\n');
    const order = dated.decisions.find((d) => d.kind === 'dateOrder')!;
    expect(settleDecision(dated.mapping, order, { kind: 'format', format: 'dd.MM.yyyy' }, dated.headers)).toMatch(
      /does not read "05\/01\/2021"/,
    );
    expect(
      settleDecision(dated.mapping, order, { kind: 'format', format: 'MM/dd/yyyy' }, dated.headers),
    ).toBeUndefined();
    expect(dated.mapping.columns.Since).toEqual({ field: 'createdAt', format: 'MM/dd/yyyy' });
  });
});
