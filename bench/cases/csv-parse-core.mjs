// The CSV parser's core alone (no record checks, no worker): csv-parse's `api.parse` as the reader drove it until
// issue 28, against our scanner, on the same file in 64 KB chunks, alternating. Prints CPU ms per run.
// node bench/cases/csv-parse-core.mjs FILE [ROUNDS]
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse';
import { CsvScanner } from '../../dist/io/csv-scanner.js';

const [file, roundsArg] = process.argv.slice(2);
const bytes = readFileSync(file);
const chunks = [];
for (let i = 0; i < bytes.length; i += 65536) chunks.push(Buffer.from(bytes.subarray(i, i + 65536)));

function csvParseCore() {
  const parser = parse({
    delimiter: ',',
    bom: true,
    encoding: 'utf8',
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    max_record_size: 16 * 1024 * 1024,
  });
  const info = parser.info;
  return {
    parse: (buf, end, push) =>
      parser.api.parse(
        buf,
        end,
        (cells) => {
          info.records = 0;
          push(cells);
        },
        () => undefined,
      ),
  };
}
const scanner = () => new CsvScanner({ delimiter: ',', maxRecordSize: 16 * 1024 * 1024 });

function run(core) {
  let rows = 0;
  let cells = 0;
  const push = (record) => {
    rows++;
    cells += record.length;
  };
  const start = process.cpuUsage();
  for (const chunk of chunks) core.parse(chunk, false, push);
  core.parse(undefined, true, push);
  const used = process.cpuUsage(start);
  return { ms: Math.round((used.user + used.system) / 1000), rows, cells };
}

const rounds = Number(roundsArg ?? 5);
for (let r = 0; r < rounds; r++) {
  const a = run(csvParseCore());
  const b = run(scanner());
  console.log(
    `csv-parse ${a.ms} ms (${a.rows} rows)   scanner ${b.ms} ms (${b.rows} rows, cells ${a.cells === b.cells ? 'same count' : 'DIFFER'})`,
  );
}
