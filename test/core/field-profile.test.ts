/** validate --stats: what the valid items carry, field by field, counted exactly within its bounds. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderProfile } from '../../src/cli/render/validate-profile.js';
import type { Output } from '../../src/cli/output.js';
import { ItemsProfiler, MAX_TRACKED } from '../../src/core/validate/field-profile.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import type { MemberUpsertItem } from '../../src/schemas/index.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-stats-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

const item = (fields: Partial<MemberUpsertItem>): MemberUpsertItem =>
  ({ memberId: 'm', isActive: true, createdAt: '2024-01-01T00:00:00Z', ...fields }) as MemberUpsertItem;

describe('ItemsProfiler', () => {
  it('counts filled, null and distinct values of each field exactly as a model does', () => {
    const cell = fc.option(fc.constantFrom('a', 'b', 'c', 'ä', ''), { nil: undefined, freq: 3 });
    const nullable = fc.oneof(cell, fc.constant(null));
    fc.assert(
      fc.property(fc.array(fc.record({ city: nullable, tier: nullable }), { maxLength: 60 }), (rows) => {
        const profiler = new ItemsProfiler();
        for (const row of rows)
          profiler.add(
            item({
              address: row.city === undefined ? undefined : { city: row.city },
              metadata: row.tier === undefined ? undefined : { tier: row.tier },
            }),
          );
        const result = profiler.result();
        expect(result.items).toBe(rows.length);
        for (const [key, path] of [
          ['city', 'address.city'],
          ['tier', 'metadata.tier'],
        ] as const) {
          const values = rows.map((r) => r[key]).filter((v) => v !== undefined);
          const field = result.fields.find((f) => f.path === path);
          if (values.length === 0) {
            expect(field).toBeUndefined();
            continue;
          }
          const filled = values.filter((v) => v !== null) as string[];
          expect(field).toMatchObject({ filled: filled.length, nulls: values.length - filled.length });
          expect(field!.distinct).toBe(new Set(filled).size);
          const counts = filled.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>());
          for (const { value, count } of field!.top) expect(count).toBe(counts.get(value));
          expect(field!.top[0]?.count ?? 0).toBe(Math.max(0, ...counts.values()));
        }
      }),
    );
  });

  it('orders date-times by instant across offsets and numbers by value', () => {
    const profiler = new ItemsProfiler();
    for (const createdAt of ['2024-01-01T01:00:00+02:00', '2023-12-31T23:30:00Z', '2024-01-01T00:00:00-01:00'])
      profiler.add(item({ createdAt, customProperties: { score: Number(createdAt.slice(11, 13)) } }));
    const fields = profiler.result().fields;
    expect(fields.find((f) => f.path === 'createdAt')?.range).toEqual({
      min: '2024-01-01T01:00:00+02:00', // 23:00 UTC the day before
      max: '2024-01-01T00:00:00-01:00', // 01:00 UTC
    });
    expect(fields.find((f) => f.path === 'customProperties.score')?.range).toEqual({ min: '0', max: '23' });
  });

  it('tells values apart by their whole text, long ones too, and shows each by its first 80 characters', () => {
    const profiler = new ItemsProfiler();
    const note = 'n'.repeat(100);
    for (const tail of ['a', 'b', 'c']) profiler.add(item({ metadata: { note: `${note}${tail}` } }));
    for (const tail of ['a', 'b', 'a']) profiler.add(item({ metadata: { long: `${'x'.repeat(5000)}${tail}` } }));
    const fields = profiler.result().fields;
    const short = fields.find((f) => f.path === 'metadata.note')!;
    expect(short).toMatchObject({ filled: 3, distinct: 3 });
    expect(short.top[0]!.value).toBe(`${'n'.repeat(79)}…`);
    const long = fields.find((f) => f.path === 'metadata.long')!;
    expect(long).toMatchObject({ filled: 3, distinct: 2, top: [{ count: 2 }, { count: 1 }] });
    expect(long.top[0]!.value).toBe(`${'x'.repeat(79)}…`);
  });

  it('keeps its memory bounded: past the cap a field says "at least", and long values are cut', () => {
    const profiler = new ItemsProfiler();
    for (let i = 0; i < MAX_TRACKED + 500; i++) profiler.add(item({ email: `m${i}@example.com` }));
    profiler.add(item({ email: 'x'.repeat(5000) }));
    const email = profiler.result().fields.find((f) => f.path === 'email')!;
    expect(email).toMatchObject({ filled: MAX_TRACKED + 501, distinct: MAX_TRACKED, distinctCapped: true });
    expect(Math.max(...email.top.map((t) => t.value.length))).toBeLessThanOrEqual(80);
  });
});

describe('validate --stats', () => {
  it('shows a constant createdAt and an isActive that never varies at a glance', async () => {
    const path = join(dir, 'members.csv');
    await writeFile(path, 'id,active,city\nm-1,0,Lyon\nm-2,0,\nm-3,0,Paris\n');
    const map = join(dir, 'mapping.json');
    await writeFile(
      map,
      JSON.stringify({
        columns: { id: 'memberId', active: null, city: 'address.city' },
        fields: { isActive: { value: true }, createdAt: { value: '2020-01-01T00:00:00Z' } },
      }),
    );
    const stats = await validateFile({ path, mapFile: map, profile: true });
    const byPath = new Map(stats.profile!.fields.map((f) => [f.path, f]));
    expect(stats.profile!.items).toBe(3);
    expect(byPath.get('isActive')).toMatchObject({ filled: 3, distinct: 1, top: [{ value: 'true', count: 3 }] });
    expect(byPath.get('createdAt')).toMatchObject({ distinct: 1, range: { min: '2020-01-01T00:00:00Z' } });
    expect(byPath.get('address.city')).toMatchObject({ filled: 2, distinct: 2 });

    const lines: string[] = [];
    const output: Output = {
      color: new Chalk({ level: 0 }),
      out: (t) => void lines.push(t),
      err: () => undefined,
      warn: () => undefined,
      stderrIsTTY: false,
    };
    renderProfile(stats.profile!, output);
    const isActive = lines.find((l) => l.trimStart().startsWith('isActive'));
    expect(isActive).toMatch(/██████████ 100%\s+one value in all/);
    expect(lines.join('\n')).toMatch(/true\s+██████████ 100%/);
    expect(lines.find((l) => l.includes('address.city'))).toMatch(/67%\s+2 distinct, each once/);
  });

  it('is absent unless asked for', async () => {
    const path = join(dir, 'plain.csv');
    await writeFile(path, 'memberId,isActive,createdAt\nm-1,yes,2024-01-01\n');
    expect((await validateFile({ path })).profile).toBeUndefined();
  });
});
