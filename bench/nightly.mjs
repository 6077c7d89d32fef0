// The nightly guards' cost (issue 18), on the bench's CSV of N members (BENCH_ROWS or argv[2], default 1,000,000):
//   - the shrink guard's pre-count: lines of the file (and of the same file gzip'd), median of 3, against the time
//     `memberctl validate` takes on the same file (the floor of any pass over it);
//   - the absent-member bookkeeping of a --changed-only pass: marking every memberId seen (a TEMP table), then the
//     end-of-run UPDATE that marks the state's members the input lacked, on a state of every member.
// Usage: npm run build && node bench/nightly.mjs [ROWS]. Exports runNightlyBench() for bench/run.mjs.
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { benchFiles } from './generate.mjs';
import { measureNode } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { countRows } = await import(`${root}dist/io/count-rows.js`);
const { SyncState } = await import(`${root}dist/state/sync-state.js`);

async function median3(work) {
  const times = [];
  let result;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    result = await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[1], result };
}

export async function runNightlyBench({ rows = 1_000_000, file } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-bench-nightly-'));
  try {
    file ??= (await benchFiles(rows, (line) => console.error(line))).csv;
    const gz = join(dir, 'members.csv.gz');
    await pipeline(createReadStream(file), createGzip(), createWriteStream(gz));
    const validate = await measureNode([join(root, 'bin', 'memberctl.js'), 'validate', file, '--json'], { cwd: root });
    const plain = await median3(() => countRows(file, 'csv'));
    const gzip = await median3(() => countRows(gz, 'csv'));
    if (plain.result.rows !== rows || gzip.result.rows !== rows)
      throw new Error(`pre-count: ${plain.result.rows} / ${gzip.result.rows} rows, expected ${rows}`);

    const state = SyncState.open(join(dir, 'members.state'), { create: true });
    const ids = Array.from({ length: rows }, (_, i) => `M${String(i + 1).padStart(7, '0')}`);
    for (let i = 0; i < rows; i += 10_000)
      state.commit(ids.slice(i, i + 10_000).map((memberId) => ({ memberId, hash: 'h', textHash: 't' })));
    let started = performance.now();
    for (const id of ids) state.nightly.markSeen(id);
    const markMs = performance.now() - started;
    started = performance.now();
    const absentNone = state.finishWholeRun(rows);
    const finishMs = performance.now() - started;
    // the next night: 1% of the members gone from the export
    for (const id of ids.slice(0, rows - rows / 100)) state.nightly.markSeen(id);
    started = performance.now();
    const absentSome = state.finishWholeRun(rows - rows / 100);
    const finishSomeMs = performance.now() - started;
    state.close();
    if (absentNone !== 0 || absentSome !== rows / 100) throw new Error(`absent: ${absentNone}, ${absentSome}`);

    const pct = (ms) => `${((ms / validate.ms) * 100).toFixed(1)}% of validate`;
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`nightly guards, ${rows.toLocaleString('en')} CSV rows (${file}); validate took ${s(validate.ms)}`);
    console.log(
      `  shrink guard pre-count, plain file      ${s(plain.ms).padStart(8)}  (${pct(plain.ms)}; median of 3)`,
    );
    console.log(`  shrink guard pre-count, gzip file       ${s(gzip.ms).padStart(8)}  (${pct(gzip.ms)}; median of 3)`);
    console.log(`  absent bookkeeping: mark every member   ${s(markMs).padStart(8)}  (${pct(markMs)})`);
    console.log(`  absent bookkeeping: end of run, 0 gone  ${s(finishMs).padStart(8)}  (${pct(finishMs)})`);
    console.log(`  absent bookkeeping: end of run, 1% gone ${s(finishSomeMs).padStart(8)}  (${pct(finishSomeMs)})`);
    return { validateMs: validate.ms, plainMs: plain.ms, gzipMs: gzip.ms, markMs, finishMs, finishSomeMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runNightlyBench({ rows: Number(process.argv[2] ?? process.env.BENCH_ROWS ?? 1_000_000) });
}
