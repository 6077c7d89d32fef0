// The mapping language's cost (issue 17): validate of a messy export of the same N members through a mapping that
// uses format, timeZone, convert, values and firstOf, against validate of the clean CSV without one (rows per CPU
// second, target ≥ 80%); and a 100k-row workbook read in bounded memory (peak RSS < 300 MB).
// Run on its own: npm run build && node bench/mapping.mjs (BENCH_ROWS, BENCH_XLSX_ROWS); run.mjs runs it too
// (skip with BENCH_MAPPING=0).
import { createWriteStream, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchFiles, dataDir } from './generate.mjs';
import { measureNode } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}bin/memberctl.js`;

const COUNTRIES = ['Sweden', 'Norway', 'Denmark', 'Finland', 'Germany', 'France', 'United Kingdom', 'USA', 'ESP', 'nl'];
const STATUS = ['Active', 'active', 'Lapsed', 'ACTIVE'];
const HEADER =
  'Customer Id,First Name,Last Name,Work Email,Home Email,Phone,Country,Status,Date of birth,Create Date,Tier';
const pad = (n, w = 2) => String(n).padStart(w, '0');

function messyRow(i) {
  const work = i % 3 === 0 ? '' : `work.${i}@example.com`;
  return [
    `C-${pad(i, 9)}`,
    'Anna',
    'Berg',
    work,
    `home.${i}@example.com`,
    `+46 70 ${pad(i % 10_000_000, 7)}`,
    COUNTRIES[i % COUNTRIES.length],
    STATUS[i % STATUS.length],
    `${pad(1 + (i % 28))}-${pad(1 + (i % 12))}-${1950 + (i % 50)}`,
    `202${i % 5}-${pad(1 + (i % 12))}-${pad(1 + (i % 28))} ${pad(i % 24)}:${pad(i % 60)}`,
    i % 4 === 0 ? 'gold' : 'silver',
  ].join(',');
}

export const MESSY_MAPPING = {
  columns: {
    'Customer Id': 'memberId',
    'First Name': 'firstName',
    'Last Name': 'lastName',
    Phone: 'phone',
    Country: { field: 'address.countryCode', convert: 'countryCode' },
    Status: { field: 'isActive', values: { active: true, lapsed: false } },
    'Date of birth': { field: 'birthdate', format: 'dd-MM-yyyy' },
    'Create Date': { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'America/New_York' },
    Tier: { field: 'loyaltyProgram', transform: ['lowercase'] },
  },
  fields: { email: { firstOf: ['Work Email', 'Home Email'] } },
};

async function writeLines(path, rows, header, row) {
  if (existsSync(path)) return;
  const part = `${path}.part`;
  const out = createWriteStream(part);
  out.write(`${header}\n`);
  let batch = '';
  for (let i = 1; i <= rows; i++) {
    batch += `${row(i)}\n`;
    if (i % 2000 === 0 || i === rows) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end();
  await once(out, 'close');
  renameSync(part, path);
}

async function writeWorkbook(path, rows) {
  if (existsSync(path)) return;
  const { default: ExcelJS } = await import('exceljs');
  const part = `${path}.part.xlsx`;
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: part, useSharedStrings: false });
  const sheet = book.addWorksheet('Members');
  sheet.addRow(['memberId', 'email', 'phone', 'isActive', 'createdAt', 'address.countryCode']).commit();
  for (let i = 1; i <= rows; i++) {
    sheet
      .addRow([
        `M${pad(i, 9)}`,
        `m.${i}@example.com`,
        46700000000 + i,
        i % 7 !== 0,
        new Date(Date.UTC(2024, i % 12, 1 + (i % 28))),
        'SE',
      ])
      .commit();
  }
  sheet.commit();
  await book.commit();
  renameSync(part, path);
}

const rowsOf = (stdout) => {
  const result = JSON.parse(stdout);
  if (result.invalid !== 0)
    throw new Error(`${result.invalid} invalid records in generated data: ${JSON.stringify(result).slice(0, 400)}`);
  return result.rows;
};

export async function runMappingBench({ rows, file, xlsxRows = Number(process.env.BENCH_XLSX_ROWS ?? 100_000) }) {
  mkdirSync(dataDir, { recursive: true });
  const messy = join(dataDir, `messy-${rows}.csv`);
  const mapping = join(dataDir, 'messy-mapping.json');
  const workbook = join(dataDir, `members-${xlsxRows}.xlsx`);
  writeFileSync(mapping, JSON.stringify(MESSY_MAPPING));
  await writeLines(messy, rows, HEADER, messyRow);
  await writeWorkbook(workbook, xlsxRows);

  const cases = [
    ['validate csv (no mapping)', [cli, 'validate', file, '--json']],
    ['validate messy csv --map', [cli, 'validate', messy, '--map', mapping, '--json']],
    [`validate ${xlsxRows / 1000}k-row xlsx`, [cli, 'validate', workbook, '--json']],
  ];
  console.log('mapping and workbooks (issue 17)');
  const results = {};
  for (const [name, args] of cases) {
    const run = await measureNode(args, { cwd: root });
    if (run.code !== 0) {
      console.log(`  ${name}: failed (exit ${run.code}): ${run.stderr.trim().split('\n')[0]}`);
      continue;
    }
    const count = rowsOf(run.stdout);
    results[name] = { ...run, rate: Math.round((count * 1000) / run.cpuMs) };
    console.log(
      `  ${name.padEnd(28)} ${results[name].rate.toLocaleString('en').padStart(9)} rows/s CPU  ${(run.cpuMs / 1000).toFixed(1).padStart(6)} s CPU  ${`${run.rssMb} MB`.padStart(7)} peak RSS`,
    );
  }
  let missed = 0;
  const plain = results['validate csv (no mapping)'];
  const mapped = results['validate messy csv --map'];
  if (plain && mapped) {
    const ratio = mapped.rate / plain.rate;
    if (ratio < 0.8) missed++;
    console.log(
      `  ${ratio >= 0.8 ? 'met   ' : 'MISSED'} validate with a mapping ≥ 80% of validate without (rows per CPU second): ${Math.round(ratio * 100)}%`,
    );
  } else missed++;
  const book = results[`validate ${xlsxRows / 1000}k-row xlsx`];
  if (!book || book.rssMb >= 300) missed++;
  console.log(
    `  ${book && book.rssMb < 300 ? 'met   ' : 'MISSED'} a ${xlsxRows.toLocaleString('en')}-row workbook reads in < 300 MB peak RSS: ${book ? `${book.rssMb} MB` : 'failed'}`,
  );
  return { missed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  const files = await benchFiles(rows, (line) => console.error(line));
  const { missed } = await runMappingBench({ rows, file: files.csv });
  if (missed > 0) process.exitCode = 1;
}
