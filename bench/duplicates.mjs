// The duplicate memberId check's own CPU cost per row (issue 24 item 4), apart from the run around it: reads the
// bench's 1M-member files through readCandidates, maps each chunk, then runs the check over the same chunk, timing
// the two with the process's CPU clock. On a busy machine this is steadier than the difference of two whole runs.
//   npm run build && node bench/duplicates.mjs [rows]
import { benchFiles } from './generate.mjs';

const { readCandidates } = await import('../dist/core/read-candidates.js');
const rows = Number(process.argv[2] ?? 1_000_000);
const files = await benchFiles(rows, (message) => console.error(message));
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

for (const format of ['csv', 'ndjson']) {
  const stream = await readCandidates({ path: files[format] });
  let mapUs = 0;
  let checkUs = 0;
  let count = 0;
  for await (const batch of stream.batches) {
    const t0 = cpu();
    const candidates = batch.map((record) => stream.toCandidate(record));
    const t1 = cpu();
    for (let i = 0; i < batch.length; i++) stream.duplicates.check(batch[i], candidates[i]);
    checkUs += cpu() - t1;
    mapUs += t1 - t0;
    count += batch.length;
  }
  const report = stream.duplicates.report();
  const per = (us) => `${Math.round((us * 1000) / count)} ns/row`;
  console.log(
    `${format}: ${count} rows; map+validate ${per(mapUs)}, duplicate check ${per(checkUs)} (${((100 * checkUs) / mapUs).toFixed(1)}% of map+validate); duplicates found ${report.count}`,
  );
}
