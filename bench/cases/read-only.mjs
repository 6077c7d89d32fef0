// The readers alone (openRecordSource from dist/): what reading adds before mapping and validation.
import { openRecordSource } from '../../dist/io/open-source.js';

const source = await openRecordSource({ path: process.argv[2] });
let rows = 0;
let errors = 0;
for await (const record of source) {
  rows++;
  if (record.error) errors++;
}
process.stdout.write(`${JSON.stringify({ rows, errors })}\n`);
