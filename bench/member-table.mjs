// The duplicate check's table alone (issue 28): N distinct memberIds observed once (each a new memberId), then
// again (one in ten with other content); CPU per row of each pass, the table's bytes and the process's RSS growth.
//   npm run build && node bench/member-table.mjs [N=1000000]
const { MemberTable } = await import('../dist/core/duplicates/member-table.js');
const hashes = await import('../dist/core/duplicates/member-hash.js');

const count = Number(process.argv[2] ?? 1_000_000);
const lows = new Int32Array(count);
const highs = new Int32Array(count);
for (let i = 0; i < count; i++) {
  lows[i] = hashes.idHash(`M${String(i + 1).padStart(9, '0')}`);
  highs[i] = hashes.idHashHigh;
}
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const rssBefore = process.memoryUsage().rss;
const table = new MemberTable();
let started = cpuMs();
for (let i = 0; i < count; i++) table.observe(highs[i], lows[i], 7, i + 2);
const firstMs = cpuMs() - started;
started = cpuMs();
for (let i = 0; i < count; i++) table.observe(highs[i], lows[i], i % 10 === 0 ? 8 : 7, count + i + 2);
const againMs = cpuMs() - started;
const ns = (ms) => `${Math.round((ms * 1e6) / count)} ns/row`;
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
console.log(
  `${count} memberIds: new ${ns(firstMs)}, seen again ${ns(againMs)}; table ${mb(table.bytes)} (${(table.bytes / table.size).toFixed(1)} bytes each), RSS +${mb(process.memoryUsage().rss - rssBefore)}`,
);
