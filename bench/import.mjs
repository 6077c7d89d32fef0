// Import throughput, as issue 4 asks: on one CSV, validate's rate (the local floor), import's rate against a
// loopback server, import's rate with 20 ms of server latency, and a naive script's rate (whole file in memory,
// sequential 100-item batches), with peak RSS. The server is bench/null-server.mjs (it counts items and answers):
// on a 2-core machine the sandbox's own CPU (~14 µs per row) would be measured along with the client. Both import
// cases run with the same flags, --concurrency 8: by Little's law 4 requests of 500 items each 20 ms cap a run at
// 100k rows/s, below what the client reaches at 0 ms. A last line imports into the sandbox for reference.
// Usage: node bench/import.mjs [ROWS=1000000] [FILE.csv]. Exports runImportBench() for bench/run.mjs.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { measureNode } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'bin', 'memberctl.js');

/**
 * A realistic members CSV: 11 columns, a few hundred bytes per row. `shuffled`: the same rows in an order unlike
 * the memberIds' (row r is member (r × 7919) mod rows + 1, a permutation when rows is not a multiple of 7919).
 */
export async function writeMembersCsv(path, rows, { shuffled = false } = {}) {
  if (shuffled && rows % 7919 === 0) throw new Error('shuffled: rows must not be a multiple of 7919');
  const out = createWriteStream(path);
  const write = (text) => (out.write(text) ? undefined : once(out, 'drain'));
  await write('memberId,email,firstName,lastName,phone,birthdate,isActive,createdAt,address.city,address.countryCode,metadata.tier\n');
  const cities = ['Stockholm', 'Oslo', 'København', 'Helsinki', 'Göteborg'];
  for (let n = 1; n <= rows; n++) {
    const r = shuffled ? ((n * 7919) % rows) + 1 : n;
    const wait = write(
      `M${String(r).padStart(9, '0')},member${r}@example.com,Anna${r % 977},Svensson${r % 331},+46 70 ${String(r % 10_000_000).padStart(7, '0')},19${50 + (r % 50)}-0${1 + (r % 9)}-1${r % 10},${r % 7 === 0 ? 'false' : 'true'},2024-01-05T09:00:00Z,${cities[r % 5]},SE,${['gold', 'silver', 'bronze'][r % 3]}\n`,
    );
    if (wait) await wait;
  }
  out.end();
  await once(out, 'close');
}

/** Each case in its own process (bench/measure.mjs): wall time, and peak RSS reported by the child itself. */
const measure = (args, env = {}) => measureNode(args, { env, cwd: root });

/** A server in its own process: the null server, or the sandbox (for the reference line). */
async function startServer(kind, latency) {
  const args = kind === 'sandbox' ? [cli, 'sandbox', '--port', '0', '--json'] : [join(root, 'bench', 'null-server.mjs'), '--latency', String(latency)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  const { url, memberToken } = JSON.parse(line);
  return { url, token: memberToken ?? 'bench-token', stop: () => child.kill('SIGTERM') };
}

const IMPORT_FLAGS = ['--json', '--concurrency', '8'];

export async function runImportBench({ rows = 1_000_000, file } = {}) {
  if (!file) {
    file = join(mkdtempSync(join(tmpdir(), 'memberctl-bench-')), `members-${rows}.csv`);
    if (!existsSync(file)) await writeMembersCsv(file, rows);
  }
  const rate = (result) => Math.round((rows * 1000) / result.ms);
  const results = {};
  results.validate = await measure([cli, 'validate', file, '--json']);
  const cases = [['import', 'null', 0], ['import-20ms', 'null', 20], ['naive', 'null', 0], ['naive-20ms', 'null', 20], ['sandbox', 'sandbox', 0]];
  for (const [name, kind, latency] of cases) {
    const server = await startServer(kind, latency);
    try {
      results[name] = name.startsWith('naive')
        ? await measure([join(root, 'bench', 'naive-import.mjs'), file, server.url, server.token])
        : await measure([cli, 'import', file, '--base-url', server.url, ...IMPORT_FLAGS], { MEMBERCTL_TOKEN: server.token });
    } finally {
      server.stop();
    }
    if (results[name].code !== 0) console.error(`${name} exited ${results[name].code}: ${results[name].stderr.slice(-500)}`);
  }
  // rows per CPU second of the measured process itself: steadier than wall time on a shared machine
  const cpuRate = (result) => Math.round((rows * 1000) / result.cpuMs);
  const line = (name) => `${name.padEnd(12)} ${String(rate(results[name])).padStart(8)} rows/s  ${String(Math.round(results[name].ms)).padStart(7)} ms  ${String(cpuRate(results[name])).padStart(8)} rows/CPU-s  ${String(Math.round(results[name].cpuMs)).padStart(7)} CPU ms  peak RSS ${results[name].rssMb} MB`;
  console.log(`import benchmark, ${rows} CSV rows (${file})`);
  for (const name of Object.keys(results)) console.log(line(name));
  const ratio = (a, b) => (rate(results[a]) / rate(results[b])).toFixed(2);
  console.log(`import / validate            ${ratio('import', 'validate')}  (target ≥ 0.80)`);
  console.log(`import 20 ms / import 0 ms   ${ratio('import-20ms', 'import')}  (target ≥ 0.90)`);
  console.log(`import / naive               ${ratio('import', 'naive')}  (target ≥ 1.5)`);
  console.log(`import 20 ms / naive 20 ms   ${ratio('import-20ms', 'naive-20ms')}  (target ≥ 8)`);
  console.log(`sandbox / validate           ${ratio('sandbox', 'validate')}  (reference: the sandbox's CPU shares the machine)`);
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runImportBench({ rows: Number(process.argv[2] ?? 1_000_000), file: process.argv[3] });
}
