// The floor: csv-parse's stream API alone on the file, counting rows (no mapping, no validation).
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

let rows = -1; // the header
for await (const record of createReadStream(process.argv[2]).pipe(parse())) if (record) rows++;
process.stdout.write(`${JSON.stringify({ rows })}\n`);
