// The baseline issue 4 compares against: the whole file in memory, parsed at once, then sequential 100-item
// batches through fetch. What a quick script would do. Usage: node bench/naive-import.mjs FILE.csv BASE_URL TOKEN
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

const [file, baseUrl, token] = process.argv.slice(2);
const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true });
const items = rows.map((row) => {
  const item = { isActive: row.isActive === 'true' };
  for (const [key, value] of Object.entries(row)) {
    if (value === '' || key === 'isActive') continue;
    const [head, sub] = key.split('.');
    if (sub) (item[head] ??= {})[sub] = value;
    else item[key] = value;
  }
  return item;
});
const url = new URL('member/v1/members/import', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
let imported = 0;
for (let i = 0; i < items.length; i += 100) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(items.slice(i, i + 100)),
  });
  const result = await response.json();
  imported += (result.importedCount ?? 0) + (result.updatedCount ?? 0);
}
console.log(JSON.stringify({ rows: items.length, imported }));
