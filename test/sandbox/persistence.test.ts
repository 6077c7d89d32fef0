import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, StoreFileError, type SandboxHandle } from '../../src/sandbox/index.js';
import { importBatch, member, subscribe } from './helpers.js';

const open: SandboxHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function start(dataFile: string, persistDelayMs?: number) {
  const sandbox = await startSandbox({ dataFile, persistDelayMs });
  open.push(sandbox);
  return sandbox;
}
const tempFile = () => join(mkdtempSync(join(tmpdir(), 'memberctl-sandbox-')), 'store.ndjson');

/** The whole file parses: header, one JSON value per line, a trailer whose counts match. */
function parseStoreFile(file: string) {
  const lines = readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  const records = lines.map((line) => JSON.parse(line));
  expect(records[0].format).toBe('memberctl-sandbox-store');
  const end = records.at(-1).end;
  expect(end.members).toBe(records.filter((r) => r.member).length);
  return records;
}

describe('--data FILE', () => {
  it('a restarted sandbox finds its members, erasures and subscriptions', async () => {
    const file = tempFile();
    const first = await start(file);
    await importBatch(first, [member('a', { email: 'a@x.io' }), member('b'), member('c')]);
    first.erase('b');
    await subscribe(first, 'cust', { tokenHandle: 'h', platform: 'Apns', installationId: 'i' });
    await first.close();
    expect(parseStoreFile(file).at(-1).end).toEqual({ members: 2, erased: 1, subscriptions: 1 });

    const second = await start(file);
    expect(second.getMember('a')).toEqual(member('a', { email: 'a@x.io' }));
    expect(second.memberCount()).toBe(2);
    expect(second.subscriptions()).toMatchObject([{ customerId: 'cust', installationId: 'i', tokenHandle: 'h' }]);
    expect((await importBatch(second, [member('b'), member('a')])).json).toEqual({
      importedCount: 0,
      updatedCount: 1,
      skipped: [{ memberId: 'b', reason: 'member erased' }],
    });
  });

  it('is written while running (debounced), and the file is whole at every moment', async () => {
    const file = tempFile();
    const sandbox = await start(file, 5);
    let reads = 0;
    for (let batch = 0; batch < 60; batch++) {
      await importBatch(
        sandbox,
        Array.from({ length: 50 }, (_, i) => member(`b${batch}-${i}`, { firstName: 'x'.repeat(40) })),
      );
      try {
        parseStoreFile(file);
        reads++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    await sandbox.flush();
    expect(parseStoreFile(file).at(-1).end.members).toBe(3000);
    expect(reads).toBeGreaterThan(0);
    await sandbox.close();
    // no temp files left beside the store
    expect(readdirSync(join(file, '..'))).toEqual(['store.ndjson']);
  });

  it('refuses a damaged file, naming the line, instead of starting empty', async () => {
    const file = tempFile();
    const sandbox = await start(file);
    await importBatch(sandbox, [member('a'), member('b')]);
    await sandbox.close();
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.lastIndexOf('{"end"')));
    await expect(startSandbox({ dataFile: file })).rejects.toThrow(/no end trailer/);
    writeFileSync(file, text.replace('{"member":', '{"member":{'));
    await expect(startSandbox({ dataFile: file })).rejects.toThrow(/line 2: not JSON/);
    writeFileSync(file, '');
    await expect(startSandbox({ dataFile: file })).rejects.toBeInstanceOf(StoreFileError);
    writeFileSync(file, '{"members":[]}\n');
    await expect(startSandbox({ dataFile: file })).rejects.toThrow(/not a sandbox store/);
  });

  it('a folder that cannot take the file is refused at start', async () => {
    await expect(startSandbox({ dataFile: join(tempFile(), 'nested', 'store.ndjson') })).rejects.toThrow(
      /cannot write the store file's folder/,
    );
  });

  it('a missing file is an empty store', async () => {
    const sandbox = await start(tempFile());
    expect(sandbox.memberCount()).toBe(0);
  });
});
