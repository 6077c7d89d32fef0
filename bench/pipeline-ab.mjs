// The import pipeline's main-thread bookkeeping of two builds, A/B in one process (issue 28): the same pre-mapped
// rows of a bench CSV through each build's runPipeline (reader, duplicate check, per-member order, slabs, batches,
// the ledger, the journal's entries) against an instant in-memory transport, rounds alternating, CPU per round.
// No parsing, mapping or HTTP: what is left is the per-row path itself, and the two builds run under the same load.
//   node --expose-gc bench/pipeline-ab.mjs DIR_A DIR_B [rounds=8] [csv=/tmp/rp-200k.csv]
// (DIR_A and DIR_B are built checkouts; the CSV is bench/import.mjs's writeMembersCsv output)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dirA, dirB] = [process.argv[2], process.argv[3]];
const rounds = Number(process.argv[4] ?? 8);
const csv = process.argv[5] ?? '/tmp/rp-200k.csv';
if (!dirA || !dirB || typeof global.gc !== 'function') {
  console.error('usage: node --expose-gc bench/pipeline-ab.mjs DIR_A DIR_B [rounds] [csv]');
  process.exit(2);
}
const lines = fs.readFileSync(csv, 'utf8').trim().split('\n').slice(1);
const rows = lines.map((line) => line.split(',').map((cell) => Buffer.from(cell).toString()));
const items = rows.map((c) => ({
  memberId: c[0],
  email: c[1],
  firstName: c[2],
  lastName: c[3],
  phone: c[4],
  birthdate: c[5],
  isActive: c[6] === 'true',
  createdAt: c[7],
  address: { city: c[8], countryCode: c[9] },
  metadata: { tier: c[10] },
}));
const load = async (dir) => {
  const from = (file) => import(pathToFileURL(path.resolve(dir, 'dist', file)).href);
  return {
    runPipeline: (await from('core/import/index.js')).runPipeline,
    DuplicateMembers: (await from('core/duplicates/duplicate-members.js')).DuplicateMembers,
    journalEntry: (await from('core/import/durable/hooks.js')).journalEntry,
  };
};
const builds = { A: await load(dirA), B: await load(dirB) };

/** Answers every batch at once as all imported (it is given the item count). */
const instantTransport = () => ({
  stats: { requests: 0, retries: 0 },
  async postImport(_body, _signal, _onAttempt, count) {
    this.stats.requests++;
    await new Promise((resolve) => setImmediate(resolve));
    return { kind: 'ok', status: 200, result: { importedCount: count, updatedCount: 0, skipped: null } };
  },
});

async function round(name) {
  const { runPipeline, DuplicateMembers, journalEntry } = builds[name];
  async function* batches() {
    for (let i = 0; i < rows.length; i += 400)
      yield rows.slice(i, i + 400).map((cells, k) => Object.assign(cells, { record: i + k + 1, line: i + k + 2 }));
  }
  const toCandidate = (raw) => ({ record: raw.record, line: raw.line, raw, valid: true, item: items[raw.record - 1] });
  global.gc();
  const started = process.cpuUsage();
  const summary = await runPipeline({
    chunks: { batches: batches(), toCandidate },
    transport: instantTransport(),
    duplicates: new DuplicateMembers(),
    hooks: { onSettled: (batch) => void journalEntry(batch) },
  });
  const used = process.cpuUsage(started);
  if (summary.importedCount !== rows.length) throw new Error(`${name}: ${summary.importedCount} of ${rows.length}`);
  return (used.user + used.system) / 1000;
}

const times = { A: [], B: [] };
// a first round of each to warm up, not counted; then A, B and B, A by turns
for (let r = 0; r <= rounds; r++)
  for (const name of r % 2 ? ['B', 'A'] : ['A', 'B']) {
    const ms = await round(name);
    if (r > 0) times[name].push(ms);
  }
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const name of ['A', 'B'])
  console.log(
    `${name} ${name === 'A' ? dirA : dirB}: median ${median(times[name]).toFixed(0)} ms per round, ${times[name].map((ms) => ms.toFixed(0)).join(' ')}`,
  );
