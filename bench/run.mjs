// npm run bench: throughput (rows/s) and peak RSS of reading and validating N members (BENCH_ROWS, default
// 1,000,000) as CSV, NDJSON and a JSON array, next to the floor: csv-parse alone on the same CSV. Every case runs
// in its own Node process, one after the other (the machine is shared), and reports its own peak RSS.
//
// Adding a case: push { name, format, args(files) → node arguments, rows(stdout) → rows the case reports } onto
// CASES, and targets onto TARGETS. Suites that need more (a server, a state) export a function that run.mjs
// awaits after the table, e.g. bench/import.mjs's runImportBench (skip it with BENCH_IMPORT=0).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchFiles } from './generate.mjs';
import { measureNode } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}bin/memberctl.js`;
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RSS_LIMIT_MB = 150;

const jsonRows = (key) => (stdout) => JSON.parse(stdout.trim().split('\n').pop())[key];
const validateCase = (format) => ({
  name: `validate ${format}`,
  format,
  args: (files) => [cli, 'validate', files[format], '--json'],
  rows: (stdout) => {
    const result = JSON.parse(stdout);
    if (result.invalid !== 0)
      throw new Error(`validate ${format}: ${result.invalid} invalid records in generated data`);
    return result.rows;
  },
});

export const CASES = [
  {
    name: 'csv-parse alone (floor)',
    format: 'csv',
    args: (files) => [`${root}bench/cases/csv-parse-alone.mjs`, files.csv],
    rows: jsonRows('rows'),
  },
  ...['csv', 'ndjson', 'json'].map((format) => ({
    name: `reader only ${format}`,
    format,
    args: (files) => [`${root}bench/cases/read-only.mjs`, files[format]],
    rows: jsonRows('rows'),
  })),
  ...['csv', 'ndjson', 'json'].map(validateCase),
];

/** Each target: a label, the measured value and whether it is met. */
export const TARGETS = [
  (r) =>
    ratioTarget(
      'validate csv ≥ 50% of csv-parse alone (rows per CPU second)',
      r['validate csv'],
      r['csv-parse alone (floor)'],
      0.5,
    ),
  ...CASES.map(
    (c) => (r) =>
      r[c.name] && {
        label: `${c.name}: peak RSS < ${RSS_LIMIT_MB} MB`,
        value: `${r[c.name].rssMb} MB`,
        met: r[c.name].rssMb < RSS_LIMIT_MB,
      },
  ),
];

function ratioTarget(label, a, b, min) {
  if (!a || !b) return undefined;
  const ratio = a.rate / b.rate;
  return { label, value: `${Math.round(ratio * 100)}%`, met: ratio >= min };
}

async function main() {
  if (!existsSync(`${root}dist/io/open-source.js`))
    throw new Error('dist/ is missing: run `npm run bench` (it builds first)');
  const files = await benchFiles(ROWS, (line) => console.error(line));
  console.log(
    `memberctl bench: ${ROWS.toLocaleString('en')} members per file; Node ${process.version}; each case in its own process\n`,
  );
  const results = {};
  console.log(
    `${'case'.padEnd(26)} ${'rows/s CPU'.padStart(11)} ${'CPU'.padStart(8)} ${'rows/s wall'.padStart(12)} ${'wall'.padStart(8)} ${'peak RSS'.padStart(9)}`,
  );
  for (const c of CASES) {
    const run = await measureNode(c.args(files), { cwd: root });
    if (run.code !== 0) {
      console.log(`${c.name.padEnd(26)} failed (exit ${run.code}): ${run.stderr.trim().split('\n')[0]}`);
      continue;
    }
    const rows = c.rows(run.stdout);
    if (rows !== ROWS) console.log(`  ${c.name}: read ${rows} rows, expected ${ROWS}`);
    // rate: per second of CPU (comparable between cases on a shared machine); wallRate: per second of wall time
    results[c.name] = {
      ...run,
      rows,
      rate: Math.round((rows * 1000) / run.cpuMs),
      wallRate: Math.round((rows * 1000) / run.ms),
    };
    const r = results[c.name];
    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `${c.name.padEnd(26)} ${r.rate.toLocaleString('en').padStart(11)} ${seconds(r.cpuMs).padStart(8)} ${r.wallRate.toLocaleString('en').padStart(12)} ${seconds(r.ms).padStart(8)} ${`${r.rssMb} MB`.padStart(9)}`,
    );
  }
  console.log('\ntargets (issue 2)');
  let missed = 0;
  for (const target of TARGETS) {
    const t = target(results);
    if (!t) continue;
    if (!t.met) missed++;
    console.log(`  ${t.met ? 'met   ' : 'MISSED'} ${t.label}: ${t.value}`);
  }
  if (process.env.BENCH_IMPORT !== '0' && existsSync(`${root}bench/import.mjs`)) {
    console.log('');
    const { runImportBench } = await import('./import.mjs');
    missed += (await runImportBench({ rows: ROWS, file: files.csv })).missed; // issue 19; skip with BENCH_IMPORT=0
  }
  if (process.env.BENCH_STATE !== '0' && existsSync(`${root}bench/resume-and-sync.mjs`)) {
    console.log('');
    const { runStateBench } = await import('./resume-and-sync.mjs');
    missed += (await runStateBench({ rows: ROWS, file: files.csv })).missed; // issue 6; skip with BENCH_STATE=0
  }
  if (process.env.BENCH_MAPPING !== '0' && existsSync(`${root}bench/mapping.mjs`)) {
    console.log('');
    const { runMappingBench } = await import('./mapping.mjs');
    missed += (await runMappingBench({ rows: ROWS, file: files.csv })).missed; // issue 17; skip with BENCH_MAPPING=0
  }
  if (process.env.BENCH_NIGHTLY !== '0' && existsSync(`${root}bench/nightly.mjs`)) {
    console.log('');
    const { runNightlyBench } = await import('./nightly.mjs');
    await runNightlyBench({ rows: ROWS, file: files.csv }); // issue 18: the guards' cost; skip with BENCH_NIGHTLY=0
  }
  if (missed > 0) process.exitCode = 1;
}

await main();
