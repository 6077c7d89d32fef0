/**
 * --null-token matches unquoted cells only: a quoted cell is text as written (PostgreSQL's COPY rule), so a member
 * whose surname is "NULL" keeps it. The same on the main thread and in the CSV parsing worker (trial2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRecordMapper } from '../../src/core/mapping/index.js';
import { readCandidates } from '../../src/core/read-candidates.js';
import type { Candidate } from '../../src/core/candidate.js';
import { tempDir } from '../io/reader-helpers.js';

const files = tempDir('null-token-quoted');
afterAll(() => files.remove());

const T = '2024-01-01T00:00:00.000Z';
const CSV = [
  'memberId,isActive,createdAt,lastName,metadata.tier',
  'm1,true,2024-01-01,NULL,NULL',
  'm2,true,2024-01-01,"NULL"," NULL "',
  'm3,true,2024-01-01,"Null",Gold',
  '"m4",true,2024-01-01,"NULL",NULL',
  '',
].join('\n');

async function items(csvWorker: 'always' | 'never', nullToken: string | undefined) {
  const path = files.write(`quoted-${csvWorker}.csv`, CSV);
  const stream = await readCandidates({ path, csvWorker, parseAhead: true, nullToken });
  const out: Candidate[] = [];
  for await (const candidate of stream.candidates) out.push(candidate);
  return out.map((c) => (c.valid ? c.item : c.issues));
}

describe('--null-token and quoted cells', () => {
  for (const csvWorker of ['never', 'always'] as const) {
    it(`a quoted "NULL" is text, an unquoted NULL is null (csvWorker: ${csvWorker})`, async () => {
      expect(await items(csvWorker, 'NULL')).toEqual([
        { memberId: 'm1', isActive: true, createdAt: T, lastName: null, metadata: { tier: null } },
        { memberId: 'm2', isActive: true, createdAt: T, lastName: 'NULL', metadata: { tier: 'NULL' } },
        { memberId: 'm3', isActive: true, createdAt: T, lastName: 'Null', metadata: { tier: 'Gold' } },
        { memberId: 'm4', isActive: true, createdAt: T, lastName: 'NULL', metadata: { tier: null } },
      ]);
    });

    it(`without a null token every NULL is text (csvWorker: ${csvWorker})`, async () => {
      const got = await items(csvWorker, undefined);
      expect(got.map((item) => (item as { lastName?: unknown }).lastName)).toEqual(['NULL', 'NULL', 'Null', 'NULL']);
    });
  }

  it('a quoted and an unquoted NULL make different --changed-only keys (they make different items)', () => {
    const headers = ['memberId', 'isActive', 'createdAt', 'lastName'];
    const mapper = createRecordMapper('csv', headers, { file: 'a.csv', nullToken: 'NULL' });
    const raw = ['m1', 'true', '2024-01-01', 'NULL'];
    const unquoted = mapper.sourceKey!({ record: 1, line: 2, raw });
    const quoted = mapper.sourceKey!({ record: 1, line: 2, raw, quotedNullTokens: [3] });
    expect(unquoted?.key).toBeDefined();
    expect(quoted?.key).not.toBe(unquoted?.key);
  });
});
