// The bench's input: N realistic, valid members written once as CSV, NDJSON and a JSON array (pretty-printed,
// as exports often are) under bench/data/ (git-ignored), reused while present. Written to a .part file first,
// so an interrupted run never leaves a short file behind to be reused.
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const dataDir = fileURLToPath(new URL('./data/', import.meta.url));

const FIRST = [
  'Anna',
  'Björn',
  'Zoë',
  'Lukas',
  'Sofia',
  'Ola',
  'Aino',
  'Mette',
  'Jan',
  'María',
  'Emma',
  'Piotr',
  'Liam',
  'Yuki',
  'Ana',
  'Karel',
];
const LAST = [
  'Svensson',
  'Lindqvist',
  'Martin',
  'Müller',
  'Rossi',
  'Nordmann',
  'Virtanen',
  'Jensen',
  'de Jong',
  'García',
  'Smith',
  "O'Brien",
];
const PLACES = [
  ['Stockholm', 'SE', '111 21'],
  ['Oslo', 'NO', '0154'],
  ['København', 'DK', '1160'],
  ['Helsinki', 'FI', '00100'],
  ['Berlin', 'DE', '10117'],
  ['Paris', 'FR', '75002'],
];
const TIERS = ['gold', 'silver', 'bronze', ''];
const HEADERS = [
  'memberId',
  'email',
  'firstName',
  'lastName',
  'phone',
  'birthdate',
  'address.addressLine1',
  'address.zipCode',
  'address.city',
  'address.countryCode',
  'isActive',
  'createdAt',
  'loyaltyProgram',
  'metadata.tier',
  'metadata.source',
];

function member(i) {
  const first = FIRST[i % FIRST.length];
  const last = LAST[(i >> 4) % LAST.length];
  const [city, country, zip] = PLACES[i % PLACES.length];
  const tier = TIERS[i % TIERS.length];
  return {
    memberId: `M${String(i).padStart(9, '0')}`,
    email: `${first.toLowerCase()}.${i}@example.com`,
    firstName: first,
    lastName: last,
    phone: `+46 70 ${String(i % 10_000_000).padStart(7, '0')}`,
    birthdate: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
    // every fifth address has a comma, so a share of the CSV cells is quoted
    addressLine1: i % 5 === 0 ? `Storgatan ${i % 200}, lgh ${1000 + (i % 300)}` : `Main Street ${i % 500}`,
    zipCode: zip,
    city,
    countryCode: country,
    isActive: i % 7 !== 0,
    createdAt: `2024-0${1 + (i % 9)}-0${1 + (i % 9)}T09:${String(i % 60).padStart(2, '0')}:00Z`,
    tier,
    source: i % 3 === 0 ? 'store' : 'web',
  };
}

const quote = (cell) => (/[",\n\r]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

function csvRow(m) {
  return [
    m.memberId,
    m.email,
    m.firstName,
    m.lastName,
    m.phone,
    m.birthdate,
    m.addressLine1,
    m.zipCode,
    m.city,
    m.countryCode,
    m.isActive ? 'true' : 'false',
    m.createdAt,
    m.tier,
    m.tier,
    m.source,
  ]
    .map(quote)
    .join(',');
}

function item(m) {
  const o = {
    memberId: m.memberId,
    email: m.email,
    firstName: m.firstName,
    lastName: m.lastName,
    phone: m.phone,
    birthdate: `${m.birthdate}T00:00:00Z`,
  };
  o.address = { addressLine1: m.addressLine1, zipCode: m.zipCode, city: m.city, countryCode: m.countryCode };
  o.isActive = m.isActive;
  o.createdAt = m.createdAt;
  if (m.tier) o.loyaltyProgram = m.tier;
  o.metadata = m.tier ? { tier: m.tier, source: m.source } : { source: m.source };
  return o;
}

async function writeAll(path, rows, head, row, tail) {
  const part = `${path}.part`;
  const out = createWriteStream(part);
  out.write(head);
  let batch = '';
  for (let i = 1; i <= rows; i++) {
    batch += row(member(i), i);
    if (i % 2000 === 0 || i === rows) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(tail);
  await once(out, 'close');
  renameSync(part, path);
}

/** Paths of the three files for `rows` members, generated when missing. */
export async function benchFiles(rows, log = () => {}) {
  mkdirSync(dataDir, { recursive: true });
  const files = {
    csv: join(dataDir, `members-${rows}.csv`),
    ndjson: join(dataDir, `members-${rows}.ndjson`),
    json: join(dataDir, `members-${rows}.json`),
  };
  if (!existsSync(files.csv)) {
    log(`generating ${files.csv}`);
    await writeAll(files.csv, rows, `${HEADERS.join(',')}\n`, (m) => `${csvRow(m)}\n`, '');
  }
  if (!existsSync(files.ndjson)) {
    log(`generating ${files.ndjson}`);
    await writeAll(files.ndjson, rows, '', (m) => `${JSON.stringify(item(m))}\n`, '');
  }
  if (!existsSync(files.json)) {
    log(`generating ${files.json}`);
    const indented = (m) => JSON.stringify(item(m), null, 2).replaceAll('\n', '\n  ');
    await writeAll(files.json, rows, '[\n', (m, i) => `${i > 1 ? ',\n' : ''}  ${indented(m)}`, '\n]\n');
  }
  return files;
}
