// The inputs of bench/received-ab.mjs: CSV files a reader can get wrong (line endings, quotes, BOM, delimiters,
// multi-byte and astral characters across the 64 KB chunk edges, NUL, bytes that are not UTF-8, short and long
// rows, empty lines, a header alone, no final line break, an unclosed quote, 1 MB cells, repeated memberIds, null
// tokens, windows-1252 and UTF-16), a --map file with rules, and JSON/NDJSON. Each CSV is also written behind
// 4000 plain rows (`padded/`): the worker encodes rows only from its fifth chunk or so on, so that is where a
// file's own rows meet the worker's encoding.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HEADER =
  'memberId,email,firstName,lastName,phone,birthdate,isActive,createdAt,address.city,address.countryCode,metadata.tier';
const CITIES = ['Stockholm', 'Oslo', 'København', 'Helsinki', 'Göteborg', '東京', '𝒜𝓈𝓉𝓇𝒶𝓁', 'Zürich😀'];
const row = (r, sep = ',') =>
  [
    `M${String(r).padStart(6, '0')}`,
    `member${r}@example.com`,
    `Anna${r % 97}`,
    `Svensson${r % 31}`,
    `+46 70 ${String(r).padStart(7, '0')}`,
    `19${50 + (r % 50)}-0${1 + (r % 9)}-1${r % 10}`,
    r % 7 === 0 ? 'false' : 'true',
    '2024-01-05T09:00:00Z',
    CITIES[r % CITIES.length],
    'SE',
    ['gold', 'silver', 'bronze'][r % 3],
  ].join(sep);
const rows = (n, f = row) => Array.from({ length: n }, (_, i) => f(i + 1));
const cells = (r, edit) => {
  const c = row(r).split(',');
  edit(c, r);
  return c.join(',');
};
const csv = (lines, eol = '\n') => `${lines.join(eol)}${eol}`;

/** name → file contents (string: UTF-8, Buffer: as is). */
function files() {
  const f = {};
  f['plain.csv'] = csv([HEADER, ...rows(300)]);
  const eols = ['\n', '\r\n', '\r'];
  f['mixed-eol.csv'] = `${HEADER}\n${rows(3000)
    .map((l, i) => l + eols[i % 3])
    .join('')}`;
  f['quoted.csv'] = csv([
    HEADER,
    ...rows(3000, (r) =>
      cells(r, (c) => {
        if (r % 5 === 0) c[3] = `"Sv""ens\nson ${r}"`;
        if (r % 5 === 1) c[10] = `"gold,\r\n""x"" ${r}"`;
        if (r % 5 === 2) c[2] = `An"na${r}`;
        if (r % 5 === 3) c[8] = `"${CITIES[r % 8]}"`;
      }),
    ),
  ]);
  f['bom.csv'] = `\ufeff${csv([HEADER, ...rows(500)], '\r\n')}`;
  for (const [name, sep] of [
    ['semicolon', ';'],
    ['tab', '\t'],
    ['pipe', '|'],
  ])
    f[`${name}.csv`] = csv([HEADER.split(',').join(sep), ...rows(2000, (r) => row(r, sep))]);
  for (const [bytes, ch] of [
    [2, 'é'],
    [3, '東'],
    [4, '😀'],
  ]) {
    f[`mb${bytes}.csv`] = csv([
      HEADER,
      ...rows(6000, (r) =>
        cells(r, (c) => {
          c[2] = ch.repeat(1 + (r % 13)) + 'x'.repeat(r % 3);
          c[8] = ch.repeat(r % 7);
        }),
      ),
    ]);
    f[`mb${bytes}-quoted.csv`] = csv([
      HEADER,
      ...rows(6000, (r) => cells(r, (c) => (c[3] = `"${ch.repeat(1 + (r % 11))}""${ch}\n${ch}"`))),
    ]);
  }
  f['nul.csv'] = csv([HEADER, ...rows(500, (r) => cells(r, (c) => r % 50 === 0 && (c[2] = 'An\0na')))]);
  const notUtf8 = [Buffer.from(`${HEADER}\n`)];
  for (let r = 1; r <= 3000; r++) {
    const c = row(r).split(',');
    const bad = r % 97 === 0 ? [0x41, 0xc3, 0x28, 0x42] : r % 101 === 0 ? [0xf0, 0x9f, 0x98] : undefined;
    notUtf8.push(Buffer.from(`${c.slice(0, 2).join(',')},`), bad ? Buffer.from(bad) : Buffer.from(c[2]));
    notUtf8.push(Buffer.from(`,${c.slice(3).join(',')}${r % 400 === 0 ? '\xff' : ''}\n`, 'latin1'));
  }
  f['not-utf8.csv'] = Buffer.concat(notUtf8);
  f['short-long.csv'] = csv([
    HEADER,
    ...rows(2000, (r) => {
      const c = row(r).split(',');
      if (r % 30 === 0) return c.slice(0, 8).join(',');
      if (r % 31 === 0) return `${c.join(',')},extra`;
      return r % 37 === 0 ? c[0] : c.join(',');
    }),
  ]);
  f['empty-lines.csv'] = `${HEADER}\n\n${rows(500)
    .map((l, i) => (i % 10 === 0 ? `${l}\n\n` : i % 17 === 0 ? `${l}\n,,,,,,,,,,` : l))
    .join('\n')}\n\n`;
  f['header-only.csv'] = `${HEADER}\n`;
  f['no-final-newline.csv'] = `${csv([HEADER, ...rows(500)])}${row(501).replace('gold', '"go""ld"')}`;
  f['unclosed-quote.csv'] = csv([HEADER, ...rows(500), row(501).replace(',SE,', ',"SE,'), ...rows(300)]);
  f['long-cells.csv'] = csv([
    HEADER,
    ...rows(20, (r) =>
      cells(r, (c) => {
        if (r === 5) c[10] = 'x'.repeat(1 << 20);
        if (r === 9) c[3] = `"${'ab""'.repeat(300_000)}"`;
        if (r === 13) c[2] = 'é'.repeat(600_000);
      }),
    ),
  ]);
  const repeat = (r) =>
    r % 10 === 0 ? row(r - 1) : r % 10 === 5 ? row(r - 2).replace(/Svensson\d+/, 'Other') : row(r);
  f['duplicates.csv'] = csv([HEADER, ...rows(2000, repeat)]);
  const far = rows(4000);
  f['far-duplicates.csv'] = csv([HEADER, ...far, ...far.map((l, i) => (i % 7 ? l : l.replace('Anna', 'Anne')))]);
  f['null-token.csv'] = csv([
    HEADER,
    ...rows(1000, (r) =>
      cells(r, (c) => {
        if (r % 3 === 0) c[3] = 'NULL';
        if (r % 3 === 1) c[4] = '"NULL"';
        if (r % 4 === 0) c[8] = '';
      }),
    ),
  ]);
  const western = csv([HEADER, ...rows(2000, (r) => row(r).replace(/東京|𝒜𝓈𝓉𝓇𝒶𝓁|😀/, 'Zürich€'))], '\r\n');
  f['windows-1252.csv'] = Buffer.from([...western].map((ch) => (ch === '€' ? 0x80 : ch.charCodeAt(0))));
  f['utf-16le.csv'] = Buffer.from(csv([HEADER, ...rows(3000)]), 'utf16le');
  f['mapped.csv'] = csv([
    'Id;Mail;Vorname;Name;Aktiv;Eintritt;Ort;Stufe',
    ...rows(3000, (r) =>
      [
        `K${r}`,
        ` K${r}@Example.org`,
        `Vor${r % 50}`,
        r % 9 === 0 ? '' : `Nach${r}`,
        ['ja', 'nein', 'aktiv', 'passiv', 'JA', 'x'][r % 6],
        r % 11 === 0 ? '31.02.2020 10:00' : `0${1 + (r % 9)}.0${1 + (r % 9)}.20${10 + (r % 15)} 0${r % 10}:30`,
        CITIES[r % 8],
        ['g', 's', 'b', 'G'][r % 4],
      ].join(';'),
    ),
  ]);
  return f;
}

const MAPPING_COLUMNS = {
  Id: 'memberId',
  Mail: { field: 'email', transform: ['trim', 'lowercase'] },
  Vorname: 'firstName',
  Name: { field: 'lastName', emptyAsNull: true },
  Aktiv: { field: 'isActive', values: { ja: true, aktiv: true, nein: false, passiv: 'no' } },
  Eintritt: { field: 'createdAt', format: 'dd.MM.yyyy HH:mm', timeZone: 'Europe/Berlin' },
  Ort: { field: 'address.city', transform: 'uppercase' },
  Stufe: { field: 'metadata.tier', values: { g: 'gold', s: 'silver', b: 'bronze' }, otherwise: 'other' },
};

/** 4000 plain rows right after the header line, in the file's delimiter (and encoding). */
function padded(name, content) {
  const pad = (sep) =>
    rows(4000, (r) =>
      row(r, sep)
        .replace(/^M/, 'P')
        .replace(/Göteborg|København|東京|𝒜𝓈𝓉𝓇𝒶𝓁|Zürich😀/, 'Oslo'),
    );
  if (name === 'mapped.csv') {
    const pads = rows(4000, (r) => `Q${r};q${r}@example.org;V;N;ja;01.02.2020 10:30;Oslo;g`);
    return content.replace('\n', `\n${pads.join('\n')}\n`);
  }
  if (name === 'utf-16le.csv') {
    const text = content.toString('utf16le');
    return Buffer.from(text.replace('\n', `\n${pad(',').join('\n')}\n`), 'utf16le');
  }
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const end = bytes.indexOf(0x0a) + 1;
  const sep = name === 'semicolon.csv' ? ';' : name === 'tab.csv' ? '\t' : name === 'pipe.csv' ? '|' : ',';
  return Buffer.concat([bytes.subarray(0, end), Buffer.from(`${pad(sep).join('\n')}\n`), bytes.subarray(end)]);
}

/** Writes every input into `dir` (and `dir/padded`); returns the CSV files' names. */
export function writeInputs(dir) {
  mkdirSync(join(dir, 'padded'), { recursive: true });
  const all = files();
  for (const [name, content] of Object.entries(all)) {
    writeFileSync(join(dir, name), content);
    if (name !== 'header-only.csv') writeFileSync(join(dir, 'padded', name), padded(name, content));
  }
  for (const sub of ['', 'padded']) {
    writeFileSync(join(dir, sub, 'mapped.mapping.json'), JSON.stringify({ columns: MAPPING_COLUMNS }));
    const fields = { 'address.countryCode': { value: 'DE' }, loyaltyProgram: { default: 'basic' } };
    writeFileSync(join(dir, sub, 'mapped-fields.mapping.json'), JSON.stringify({ columns: MAPPING_COLUMNS, fields }));
  }
  const member = (r) => ({
    memberId: `J${r}`,
    email: r % 50 === 0 ? 'not-an-email' : `j${r}@example.com`,
    firstName: CITIES[r % 8],
    isActive: r % 2 === 0,
    createdAt: '2024-01-05T09:00:00Z',
    metadata: { tier: 'é😀' },
  });
  writeFileSync(join(dir, 'members.json'), JSON.stringify(rows(3000, member)));
  writeFileSync(join(dir, 'members.ndjson'), `${rows(3000, (r) => JSON.stringify(member(r))).join('\n')}\nnot json\n`);
  return Object.keys(all);
}
