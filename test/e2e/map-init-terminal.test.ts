/**
 * `memberctl map init --interactive` at a real terminal (a pseudo-terminal from util-linux `script`): each decision
 * asked with its cells, a wrong answer asked again, Enter keeping the proposal; the settled mapping runs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from './config-cli-helper.js';
import { hasScript, runOnTerminal } from './terminal-helper.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-map-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = isolatedEnv();
const shop = join(import.meta.dirname, '..', '..', 'fixtures', 'guide', 'shop-customers.csv');

describe.skipIf(!hasScript)('memberctl map init --interactive on a terminal', { timeout: 60_000 }, () => {
  it('asks each decision with its cells, asks again after a wrong zone, and writes a mapping that runs', async () => {
    const out = join(dir, 'shop-mapping.json');
    const run = await runOnTerminal(['map', 'init', shop, '--interactive', '--out', out], env, [
      { when: '"paused" means isActive is true or false? (t/f): ', send: 'f\n' },
      { when: 'time zone (Enter keeps UTC): ', send: 'Europe/Olso\n' },
      { when: 'time zone (Enter keeps UTC): ', send: 'Europe/Oslo\n' },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('decision 1 of 2: Status');
    expect(run.screen).toContain('cells: "2023-01-05 10:22", "2023-03-12 02:30"');
    expect(run.screen).toContain('"Europe/Olso" is not a time zone');
    const mapping = JSON.parse(readFileSync(out, 'utf8'));
    expect(mapping.decisions).toBeUndefined();
    expect(mapping.columns.Status.values).toEqual({ active: true, lapsed: false, paused: false });
    expect(mapping.columns['Create Date']).toEqual({
      field: 'createdAt',
      format: 'yyyy-MM-dd HH:mm',
      timeZone: 'Europe/Oslo',
    });
    // it runs: only the guide's one bad row (31 February, Narnia) is invalid
    const validate = await runCli(['validate', shop, '--map', out, '--json'], env);
    expect(JSON.parse(validate.stdout)).toMatchObject({ rows: 6, valid: 5, invalid: 1 });
  });

  it('a missing id and join date: Enter keeps the proposed columns; the constant for isActive is answered', async () => {
    const input = join(dir, 'people.csv');
    writeFileSync(input, 'Name,Email,Signed\nAnn Berg,ann@example.com,05/01/2021\nBo Li,bo@example.com,07/02/2021\n');
    const out = join(dir, 'people-mapping.json');
    const run = await runOnTerminal(['map', 'init', input, '--interactive', '--out', out], env, [
      { when: 'type the header of another column: ', send: '\n' },
      { when: 'type the header of another column: ', send: '\n' },
      { when: '(Enter keeps 1): ', send: '2\n' },
      { when: 'every member active? (Enter keeps true; f for false; or a header): ', send: '\n' },
    ]);
    expect(run.code, run.screen).toBe(0);
    const mapping = JSON.parse(readFileSync(out, 'utf8'));
    expect(mapping).toMatchObject({
      columns: {
        Name: 'metadata.name',
        Email: ['memberId', 'email'],
        Signed: { field: 'createdAt', format: 'MM/dd/yyyy' },
      },
      fields: { isActive: { value: true } },
    });
    expect(mapping.decisions).toBeUndefined();
  });

  it('a weak guess (the plain phone beside a mobile taken for the landline) is shown with its cells; "n" keeps it in metadata', async () => {
    const input = join(dir, 'phones.csv');
    writeFileSync(
      input,
      'id,Active,Joined,Phone,Mobile\nm-1,yes,2024-01-05,555-0100,555-0200\nm-2,no,2024-01-06,555-0101,555-0201\n',
    );
    const out = join(dir, 'phones-mapping.json');
    const run = await runOnTerminal(['map', 'init', input, '--interactive', '--out', out], env, [
      { when: 'keeps the column in metadata instead): ', send: 'n\n' },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('weak guess: "Phone" → homeTelephone');
    expect(run.screen).toContain('cells: "555-0100", "555-0101"');
    expect(JSON.parse(readFileSync(out, 'utf8')).columns).toMatchObject({ Phone: 'metadata.phone', Mobile: 'phone' });
  });

  it('Ctrl-C at a question (exit 130) or Ctrl-D (exit 2): nothing is written', async () => {
    const out = join(dir, 'never.json');
    const interrupted = await runOnTerminal(['map', 'init', shop, '--interactive', '--out', out], env, [
      { when: '(t/f): ', send: '\u0003' },
    ]);
    expect(interrupted.code).toBe(130);
    expect(interrupted.screen).toContain('interrupted at the prompt: nothing was written');
    const ended = await runOnTerminal(['map', 'init', shop, '--interactive', '--out', out], env, [
      { when: '(t/f): ', send: '\u0004' },
    ]);
    expect(ended.code).toBe(2);
    expect(ended.screen).toContain('input ended before every decision was settled: nothing was written');
    expect(existsSync(out)).toBe(false);
  });

  it('not on a terminal: refused before reading, with the way without it', async () => {
    const r = await runCli(['map', 'init', shop, '--interactive'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--interactive needs a terminal');
  });
});
