/** `map init`: a starter mapping that loads as it is and almost works. */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { initMapping } from '../../src/core/map-init/map-init.js';
import { looksLikeCompany } from '../../src/core/map-init/classify/values.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { openRecordSource } from '../../src/io/open-source.js';
import ExcelJS from 'exceljs';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-mapinit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The mapping as the user leaves it once every decision is settled as proposed (the entries deleted). */
const settled = (mapping: Record<string, unknown>) => {
  const { decisions: _settled, ...rest } = mapping;
  return parseMapping(rest, 'm.json');
};

describe('map init', () => {
  it('reads values as well as headers: full names kept, a status word it cannot place and a zone are decisions', async () => {
    const path = file(
      'export.csv',
      [
        'Customer Id,Full Name,E-mail Address,Mobile,Country,Status,Date of birth,Create Date,Lead Score',
        'C-1,Ann Berg,ann@example.com,+4791234567,Norway,Active,19-07-1984,2023-01-05 10:22,4',
        'C-2,Bo Li,bo@example.com,+4791234568,Sweden,lapsed,02-11-1991,2023-03-12 14:30,5',
        'C-3,Cy Do,cy@example.com,,Chile,on hold,13-12-1990,2023-03-13 09:00,',
      ].join('\n'),
    );
    const { mapping, notes, decisions } = await initMapping({ path });
    expect(mapping.columns).toEqual({
      'Customer Id': 'memberId',
      'Full Name': 'metadata.fullName',
      'E-mail Address': 'email',
      Mobile: 'phone',
      Country: { field: 'address.countryCode', convert: 'countryCode' },
      Status: { field: 'isActive', values: { active: true, lapsed: false, 'on hold': null } },
      'Date of birth': { field: 'birthdate', format: 'dd-MM-yyyy' },
      'Create Date': { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'UTC' },
      'Lead Score': 'metadata.leadScore',
    });
    expect(mapping.fields).toEqual({});
    expect(decisions.map((d) => [d.key, d.kind])).toEqual([
      ['Status', 'values'],
      ['Create Date', 'timeZone'],
    ]);
    expect(mapping.decisions?.['Create Date']).toContain('"2023-01-05 10:22", "2023-03-12 14:30"');
    expect(mapping.decisions?.Status).toContain('what does "on hold" mean?');
    expect(notes.join('\n')).toContain('"Full Name" → metadata.fullName [kept]');
    // undecided, the mapping refuses to run, naming each decision
    expect(() => parseMapping(mapping, 'm.json')).toThrow(/decisions\["Status"\]: not settled/);
    const mapper = createRecordMapper('csv', Object.keys(mapping.columns), {
      file: 'export.csv',
      mapping: settled(mapping),
    });
    const c = mapper.toCandidate({
      record: 1,
      line: 2,
      raw: [
        'C-1',
        'Ann Berg',
        'ann@example.com',
        '+4791234567',
        'Norway',
        'Active',
        '19-07-1984',
        '2023-01-05 10:22',
        '4',
      ],
    });
    expect(c.valid && c.item).toMatchObject({
      memberId: 'C-1',
      address: { countryCode: 'NO' },
      createdAt: '2023-01-05T10:22:00.000Z',
      metadata: { fullName: 'Ann Berg', leadScore: '4' },
    });
  });

  it("never the machine's zone: date-times without an offset are a decision whatever TZ says", async () => {
    const path = file('zone.csv', 'memberId,isActive,createdAt\nm-1,true,2023-01-05 10:22\n');
    const before = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const { mapping, decisions } = await initMapping({ path });
      expect(mapping.columns.createdAt).toEqual({ field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'UTC' });
      expect(decisions.map((d) => d.kind)).toEqual(['timeZone']);
    } finally {
      process.env.TZ = before;
    }
  });

  it('a country column converts when at least half its cells are countries (a cell that is none is refused by name)', async () => {
    const path = file(
      'few-countries.csv',
      'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,Chile\nm-2,true,2024-01-01,Narnia\nm-3,true,2024-01-01,Norway\n',
    );
    const { mapping } = await initMapping({ path });
    expect(mapping.columns.Country).toEqual({ field: 'address.countryCode', convert: 'countryCode' });
    const codes = file(
      'codes.csv',
      'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,NO\nm-2,true,2024-01-01,se\n',
    );
    expect((await initMapping({ path: codes })).mapping.columns.Country).toBe('address.countryCode');
    // two letters alone, under a header that names nothing: US states as much as countries (CA, DE, IN, PA)
    const states = file('st.csv', 'id,ST\nm-1,CA\nm-2,DE\nm-3,IN\nm-4,PA\n');
    expect((await initMapping({ path: states })).mapping.columns.ST).toBe('metadata.st');
    const brazil = file(
      'region.csv',
      'memberId,isActive,createdAt,State\nm-1,true,2024-01-01,Brazil\nm-2,true,2024-01-01,Chile\n',
    );
    expect((await initMapping({ path: brazil })).mapping.columns.State).toEqual({
      field: 'address.countryCode',
      convert: 'countryCode',
    });
  });

  it('from standard input, the validate it advises reads standard input again (-, not "stdin")', async () => {
    const stdin = Readable.from(['memberId,isActive,createdAt\nm-1,true,2024-01-01\n']);
    const { validateCommand } = await initMapping({ path: '-', format: 'csv', stdin });
    expect(validateCommand).toBe('memberctl validate - --format csv');
  });

  it("local ISO date-times (a workbook's date cells) get a zone to decide and no format", async () => {
    const path = file(
      'local.csv',
      'memberId,isActive,createdAt\nm-1,true,2023-01-05T10:22:00\nm-2,false,2024-01-01T00:00:00Z\n',
    );
    const { mapping, decisions } = await initMapping({ path });
    expect(mapping.columns.createdAt).toEqual({ field: 'createdAt', timeZone: 'UTC' });
    expect(decisions.map((d) => [d.key, d.kind])).toEqual([['createdAt', 'timeZone']]);
  });

  it('never a constant where a column could serve: a unique e-mail column is proposed as memberId, a date column as createdAt', async () => {
    const path = file(
      'people.csv',
      'Name,Email,Updated,Subscription Date\nAnn Berg,ann@example.com,2024-03-01,2021-01-05\nBo Li,bo@example.com,2024-03-02,2021-02-07\n',
    );
    const { mapping, decisions } = await initMapping({ path });
    expect(mapping.columns).toEqual({
      Name: 'metadata.name',
      Email: ['memberId', 'email'],
      Updated: 'metadata.updated',
      'Subscription Date': 'createdAt',
    });
    expect(mapping.fields).toEqual({ isActive: { value: true } });
    expect(decisions.map((d) => [d.key, d.kind])).toEqual([
      ['Email', 'column'],
      ['fields.isActive', 'constant'],
    ]);
    expect(mapping.decisions?.Email).toContain('"Email" is filled and unique in all 2 sampled records');
  });

  it('a placeholder only when no column could serve, and it is a decision: the mapping refuses to run, naming each', async () => {
    const path = file('bare.csv', 'Name,Updated\nAnn Berg,2024-01-01\nAnn Berg,2024-01-02\n');
    const { mapping, decisions } = await initMapping({ path });
    expect(Object.keys(mapping.fields)).toEqual(['memberId', 'createdAt', 'isActive']);
    expect(decisions.map((d) => [d.key, d.kind])).toEqual([
      ['fields.memberId', 'constant'],
      ['fields.createdAt', 'constant'],
      ['fields.isActive', 'constant'],
    ]);
    let problems: { message: string }[] = [];
    try {
      parseMapping(mapping, 'm.json');
    } catch (error) {
      problems = (error as { problems: { message: string }[] }).problems;
    }
    expect(problems.map((p) => p.message.split(': not settled')[0])).toEqual([
      'mapping file m.json: decisions["fields.memberId"]',
      'mapping file m.json: decisions["fields.createdAt"]',
      'mapping file m.json: decisions["fields.isActive"]',
    ]);
    // settled as proposed, the memberId placeholder still names no column: validate stops before any row
    expect(() =>
      createRecordMapper('csv', ['Name', 'Updated'], { file: 'bare.csv', mapping: settled(mapping) }),
    ).toThrow(/no column gives the required field memberId/);
  });

  it('an empty column is never memberId; look-alike phones keep their own fields', async () => {
    const path = file(
      'wave.csv',
      'user_id,customer_id,Phone,Mobile,Home Phone,Business Phone\n,A-1,555-0100,555-0200,555-0300,555-0400\n,A-2,555-0101,555-0201,555-0301,555-0401\n',
    );
    const { mapping } = await initMapping({ path });
    expect(mapping.columns).toEqual({
      user_id: 'metadata.userId',
      customer_id: 'memberId',
      Phone: 'metadata.phone',
      Mobile: 'phone',
      'Home Phone': 'homeTelephone',
      'Business Phone': 'metadata.businessPhone',
    });
  });

  it('full names and company names never become firstName; a secret column is dropped', async () => {
    const path = file(
      'names.csv',
      'id,First Name,Password\n1,Gail Meyers,hunter2\n2,Grocery Outlet Inc,pw\n3,Ann Berg,x\n',
    );
    const { mapping, notes } = await initMapping({ path });
    expect(mapping.columns['First Name']).toBe('metadata.firstName');
    expect(mapping.columns.Password).toBeNull();
    expect(notes.join('\n')).toContain('3 of its 3 values are full names or company names');
  });

  it('a column of broken e-mail addresses is never called company names: a cell with @ is no company (trial2)', async () => {
    const path = file(
      'bad-emails.csv',
      'Id,Email\n1,asa@firma\n2,bo@@x.no\n3,x.co\n4,ann@example.com\n5,cy at example\n6,dee@\n7,asa@x\n8,eve@ex..com\n',
    );
    const { mapping, notes } = await initMapping({ path });
    expect(mapping.columns.Email).toBe('metadata.email');
    const note = notes.find((n) => n.startsWith('"Email"'));
    expect(note).toContain('its values are not e-mail addresses');
    expect(note).not.toContain('company');
    expect(looksLikeCompany('asa@firma.no')).toBe(false);
    expect(looksLikeCompany('Nordic Fish ASA')).toBe(true);
  });

  it('a birthdate column of midnight date-times is read as calendar dates: no zone asked, none to move the day', async () => {
    const path = file(
      'bd.csv',
      'Id,Email,Created,Birth Date\n1,a@example.com,2023-01-05 10:00,1990-06-15 00:00\n2,b@example.com,2023-01-06 11:00,1985-12-01 00:00\n',
    );
    const { mapping, decisions, notes } = await initMapping({ path });
    expect(mapping.columns['Birth Date']).toEqual({ field: 'birthdate', format: "yyyy-MM-dd '00:00'" });
    expect(decisions.map((d) => d.key)).toEqual(['Created', 'fields.isActive']);
    expect(notes.join('\n')).toContain('every sampled cell is at midnight: read as a calendar date');
    const mapper = createRecordMapper('csv', ['Id', 'Email', 'Created', 'Birth Date'], {
      file: 'bd.csv',
      mapping: settled(mapping),
    });
    const read = (birth: string) =>
      mapper.toCandidate({ record: 1, line: 2, raw: ['1', 'a@example.com', '2023-01-05 10:00', birth] });
    const day = read('1990-06-15 00:00');
    expect(day.valid && day.item.birthdate).toBe('1990-06-15T00:00:00.000Z');
    // a later cell with a time of day is refused, never read in some zone
    expect(read('1990-06-15 13:00').valid).toBe(false);
    // workbook dates (ISO, local) at midnight, and 12-hour times
    const iso = file('bd-iso.csv', 'Id,Birthday\n1,1990-06-15T00:00:00\n2,1985-12-01T00:00:00\n');
    expect((await initMapping({ path: iso })).mapping.columns.Birthday).toEqual({
      field: 'birthdate',
      format: "yyyy-MM-dd'T'00:00:00",
    });
    const us = file('bd-us.csv', 'Id,DOB\n1,6/15/1990 12:00 AM\n2,12/1/1985 12:00 AM\n');
    expect((await initMapping({ path: us })).mapping.columns.DOB).toEqual({
      field: 'birthdate',
      format: "M/d/yyyy '12:00 AM'",
    });
    // times that vary: a decision that says a zone moves the day, UTC proposed (keeps each day as written)
    const timed = file('bd-timed.csv', 'Id,Birth Date\n1,1990-06-15 13:00\n2,1985-12-01 00:00\n');
    const asked = await initMapping({ path: timed });
    expect(asked.mapping.columns['Birth Date']).toMatchObject({ timeZone: 'UTC' });
    expect(asked.mapping.decisions?.['Birth Date']).toContain('a birthdate is a calendar date, and a zone moves it');
  });

  it("Shopify's apostrophe before numbers is asked about, naming the column and its cells (no rule strips it)", async () => {
    const path = file(
      'shopify-apostrophes.csv',
      "Customer ID,Email,Default Address Zip,Default Address Phone,Note\n'6512345678901,a@example.com,'H2X 1Y4,'+15145550123,it's fine\n'6512345678902,b@example.com,'78701,,'quoted'\n",
    );
    const { mapping, decisions } = await initMapping({ path });
    expect(decisions.filter((d) => d.kind === 'asWritten').map((d) => [d.key, d.field])).toEqual([
      ['Customer ID', 'memberId'],
      ['Default Address Zip', 'address.zipCode'],
      ['Default Address Phone', 'metadata.defaultAddressPhone'],
    ]);
    expect(mapping.decisions?.['Customer ID']).toContain(
      'start with an apostrophe (e.g. "\'6512345678901", "\'6512345678902")',
    );
    expect(mapping.decisions?.['Default Address Zip']).toContain('the mapping sends it as part of the value');
    // the values stay as written until the user settles it: nothing invented
    expect(mapping.columns['Customer ID']).toBe('memberId');
  });

  it("a per-row time-zone column (Mailchimp's TIMEZONE) is named in the time-zone question, with its cells", async () => {
    const path = file(
      'mailchimp.csv',
      'Email Address,OPTIN_TIME,TIMEZONE\nalice@example.com,2021-03-04 10:00:00,America/Los_Angeles\nbob@example.com,2022-01-01 00:00:00,Europe/London\n',
    );
    const { mapping, decisions } = await initMapping({ path });
    const question = decisions.find((d) => d.kind === 'timeZone')?.question;
    expect(question).toContain(
      'The file has a time-zone column, "TIMEZONE" (e.g. "America/Los_Angeles", "Europe/London"), one per row',
    );
    expect(question).toContain('the mapping language has no zone per row');
    expect(mapping.decisions?.OPTIN_TIME).toContain('"TIMEZONE"');
    // a file without one is asked as before
    const plain = file(
      'no-zones.csv',
      'Email Address,OPTIN_TIME,CITY\na@example.com,2021-03-04 10:00:00,Los Angeles\n',
    );
    expect((await initMapping({ path: plain })).mapping.decisions?.OPTIN_TIME).not.toContain('time-zone column');
  });

  it('shop exports: an id named with its owner, "Default Address" columns, the customer\'s own phone, "0000-00-00" birthdays', async () => {
    const shopify = file(
      'shopify.csv',
      'Record ID - Contact,Default Address Province Code,Default Address Zip,Default Address Phone,Phone\n101,ON,K1P 1J1,+16135550100,+16135550199\n102,ON,M5H 2N2,,+14165550100\n',
    );
    expect((await initMapping({ path: shopify })).mapping.columns).toEqual({
      'Record ID - Contact': 'memberId',
      'Default Address Province Code': 'address.region',
      'Default Address Zip': 'address.zipCode',
      'Default Address Phone': 'metadata.defaultAddressPhone',
      Phone: 'phone',
    });
    const presta = file('presta.csv', 'id_customer;id_gender;birthday\n1;1;1980-01-02\n2;2;0000-00-00\n');
    const { mapping } = await initMapping({ path: presta });
    expect(mapping.columns).toMatchObject({
      id_customer: 'memberId',
      id_gender: 'metadata.idGender',
      birthday: { field: 'birthdate', treatAsEmpty: ['0000-00-00'] },
    });
  });

  it('"0000-00-00" alone is "no date": the record is sent without a birthdate, a typo stays a refused record', async () => {
    const good = Array.from({ length: 12 }, (_, i) => `${i + 1};1980-01-${String(i + 1).padStart(2, '0')}`);
    const rows = [...good, '13;0000-00-00', '14;1985-02-31', '15;19850704', '16;1990-13-01'];
    const path = file('presta-typos.csv', `id_customer;birthday\n${rows.join('\n')}\n`);
    const { mapping, notes } = await initMapping({ path });
    expect(mapping.columns.birthday).toEqual({ field: 'birthdate', treatAsEmpty: ['0000-00-00'] });
    const note = notes.join('\n');
    expect(note).toContain('"treatAsEmpty": ["0000-00-00"] reads exactly that cell as empty');
    expect(note).toContain(
      '"1985-02-31" (line 15), "19850704" (line 16), "1990-13-01" (line 17): those records are refused',
    );
    const mapper = createRecordMapper('csv', ['id_customer', 'birthday'], { file: 'p.csv', mapping: settled(mapping) });
    const read = (cell: string) => {
      const c = mapper.toCandidate({ record: 1, line: 2, raw: ['9', cell] });
      return c.valid ? [] : c.issues.map((i) => i.path);
    };
    expect(read('0000-00-00')).not.toContain('birthdate');
    for (const typo of ['1985-02-31', '19850704', '1990-13-01']) expect(read(typo)).toContain('birthdate');
  });

  it('CRM and address-book exports: "Person - Email - Work", "Home Street", a zone its header names, "0/0/00"', async () => {
    const pipedrive = file(
      'pipedrive.csv',
      'Person - ID,Person - First name,Person - Email - Work,Person - Email - Home,Person - Phone - Mobile\n1,Ann,a@w.example,a@h.example,555-0200\n2,Bo,,b@h.example,555-0201\n',
    );
    const crm = await initMapping({ path: pipedrive });
    expect(crm.mapping.columns).toMatchObject({
      'Person - ID': 'memberId',
      'Person - First name': 'firstName',
      'Person - Phone - Mobile': 'phone',
    });
    expect(crm.mapping.fields.email).toEqual({ firstOf: ['Person - Email - Work', 'Person - Email - Home'] });
    const outlook = file(
      'outlook.csv',
      'Contact Id,Home Street,Home City,Birthday,Created (UTC)\nc1,1 Main St,Oslo,0/0/00,2024-01-05 10:22\nc2,2 Main St,Bergen,3/14/1980,2024-01-06 11:00\n',
    );
    const book = await initMapping({ path: outlook });
    expect(book.mapping.columns).toEqual({
      'Contact Id': 'memberId',
      'Home Street': 'address.addressLine1',
      'Home City': 'address.city',
      Birthday: { field: 'birthdate', format: 'M/d/yyyy', treatAsEmpty: ['0/0/00'] },
      'Created (UTC)': { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'UTC' },
    });
    expect(book.decisions.map((d) => d.key)).toEqual(['fields.isActive']);
  });

  it('records it cannot read are left out of the sample, and a note says how many and why (the first one)', async () => {
    const path = file('bad-rows.csv', 'Id,Email\n1,a@x.com\n2,b@x.com,extra\n3,c@x.com\n4,d@x.com,x,y\n');
    const { notes } = await initMapping({ path });
    expect(notes[0]).toBe(
      '2 records of the first 4 could not be read and are left out of the sample (the first: line 3: the row has 3 cells but the header has 2 (cell 3 is "extra")); every proposal below rests on the other 2: validate lists them all',
    );
    expect((await initMapping({ path: file('good.csv', 'Id,Email\n1,a@x.com\n') })).notes.join('\n')).not.toContain(
      'could not be read',
    );
  });

  it("Salesforce's CreatedDate (+0000, an offset without its colon) is a join date with its format, not metadata", async () => {
    const path = file(
      'salesforce.csv',
      'Id,FirstName,CreatedDate\r\n0031X00000aAAAA,Ann,2023-01-05T10:00:00.000+0000\r\n0031X00000aAAAB,Bo,2023-01-06T11:30:00.000-0500\r\n',
    );
    const { mapping, decisions } = await initMapping({ path });
    expect(mapping.columns.CreatedDate).toEqual({ field: 'createdAt', format: "yyyy-MM-dd'T'HH:mm:ss.SSSxx" });
    expect(decisions.map((d) => d.key)).toEqual(['fields.isActive']);
    const mapper = createRecordMapper('csv', ['Id', 'FirstName', 'CreatedDate'], {
      file: 'salesforce.csv',
      mapping: settled(mapping),
    });
    const c = mapper.toCandidate({
      record: 1,
      line: 2,
      raw: ['0031X00000aAAAB', 'Bo', '2023-01-06T11:30:00.000-0500'],
    });
    expect(c.valid && c.item.createdAt).toBe('2023-01-06T16:30:00.000Z');
  });

  it('member lists in Spanish, French and Dutch: ids, mobiles, join dates and status words in their own words', async () => {
    const es = file(
      'socios.csv',
      'Nº socio;Nombre;Apellidos;Teléfono móvil;Fecha de alta;Estado;País\n101;Ana;García López;+34 612 345 678;15/01/2020;activo;España\n102;Luis;Pérez;+34 612 345 679;03/02/2021;baja;España\n',
    );
    expect((await initMapping({ path: es })).mapping.columns).toEqual({
      'Nº socio': 'memberId',
      Nombre: 'firstName',
      Apellidos: 'lastName',
      'Teléfono móvil': 'phone',
      'Fecha de alta': { field: 'createdAt', format: 'dd/MM/yyyy' },
      Estado: { field: 'isActive', values: { activo: true, baja: false } },
      País: { field: 'address.countryCode', convert: 'countryCode' },
    });
    const fr = file(
      'adherents.csv',
      'N° adhérent;Prénom;Nom;Portable;Statut\nA1;Léa;Moreau;06 12 34 56 78;actif\nA2;Hugo;Martin;06 12 34 56 79;inactif\n',
    );
    expect((await initMapping({ path: fr })).mapping.columns).toMatchObject({
      'N° adhérent': 'memberId',
      Prénom: 'firstName',
      Nom: 'lastName',
      Portable: 'phone',
      Statut: { field: 'isActive', values: { actif: true, inactif: false } },
    });
    const nl = file(
      'leden.csv',
      'Lidnummer;Voornaam;Achternaam;Mobiel;Lid sinds;Status;Postcode;Woonplaats\n1;Sanne;de Vries;06-12345678;14-03-2018;actief;1012 AB;Amsterdam\n2;Daan;Jansen;06-12345679;22-11-2019;opgezegd;3011 AA;Rotterdam\n',
    );
    const leden = await initMapping({ path: nl });
    expect(leden.mapping.columns).toMatchObject({
      Lidnummer: 'memberId',
      Achternaam: 'lastName',
      Mobiel: 'phone',
      'Lid sinds': { field: 'createdAt', format: 'dd-MM-yyyy' },
      Status: { field: 'isActive', values: { actief: true, opgezegd: false } },
      Postcode: 'address.zipCode',
      Woonplaats: 'address.city',
    });
    expect(leden.decisions).toEqual([]);
  });

  it("no status column: the isActive question names the yes/no columns that might say it, the other way round; metadata keys keep a word's case", async () => {
    const path = file('archived.csv', 'id,updatedAt,LEID,archived\nm-1,2024-01-01,7,false\nm-2,2024-01-02,8,true\n');
    const { mapping } = await initMapping({ path });
    expect(mapping.decisions?.['fields.isActive']).toContain(
      'yes/no columns that might say it (perhaps the other way round): "archived" (e.g. "false", "true")',
    );
    expect(mapping.columns).toMatchObject({ updatedAt: 'metadata.updatedAt', LEID: 'metadata.leid' });
  });

  it('JSON: dotted paths to the values of the first records', async () => {
    const path = file(
      'crm.ndjson',
      `${JSON.stringify({ id: 7, contact: { email: 'a@b.c', phones: ['+4791234567'], emails: [{ type: 'home', value: 'h@b.c' }] }, created: '2024-01-05T10:00:00Z', active: true })}\n`,
    );
    const { mapping, format, decisions } = await initMapping({ path });
    expect(format).toBe('ndjson');
    expect(decisions).toEqual([]);
    // two paths look like an e-mail: the first is the address, the other is kept
    expect(mapping.columns).toEqual({
      id: 'memberId',
      'contact.email': 'email',
      'contact.phones.0': 'phone',
      'contact.emails.0.type': 'metadata.contactEmails0Type',
      'contact.emails.0.value': 'metadata.contactEmails0Value',
      created: 'createdAt',
      active: 'isActive',
    });
    const mapper = createRecordMapper('ndjson', undefined, {
      file: 'crm.ndjson',
      mapping: parseMapping(mapping, 'm.json'),
    });
    const c = mapper.toCandidate({ record: 1, line: 1, raw: JSON.parse(readFileSync(path, 'utf8')) });
    expect(c.valid && c.item).toEqual({
      memberId: '7',
      email: 'a@b.c',
      phone: '+4791234567',
      createdAt: '2024-01-05T10:00:00Z',
      isActive: true,
      metadata: { contactEmails0Type: 'home', contactEmails0Value: 'h@b.c' },
    });
  });

  describe('a workbook', () => {
    /** A sheet as exports make them: Status words and an Active yes/no column; Joined holds real Excel dates and text dates. */
    async function workbook(name: string, joined: (string | Date)[]): Promise<string> {
      const book = new ExcelJS.Workbook();
      const sheet = book.addWorksheet('Members');
      sheet.addRow(['Member ID', 'Status', 'Active', 'Joined', 'Email']);
      joined.forEach((when, i) =>
        sheet.addRow([
          `M-${i + 1}`,
          i % 3 === 2 ? 'lapsed' : 'active',
          i % 2 === 0 ? 'yes' : 'no',
          when,
          `m${i + 1}@example.com`,
        ]),
      );
      const path = join(dir, name);
      await book.xlsx.writeFile(path);
      return path;
    }
    const utc = (...parts: [number, number, number, number?, number?]) =>
      new Date(Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0));

    async function validateWith(path: string, mapping: ReturnType<typeof parseMapping>) {
      const source = await openRecordSource({ path });
      const mapper = createRecordMapper('xlsx', source.headers, { file: path, mapping });
      const candidates = [];
      for await (const record of source) candidates.push(mapper.toCandidate(record));
      return candidates;
    }

    it('one column per field: "Active" (reads as it is) is mapped, "Status" (needs a values map) is null and noted with its rule', async () => {
      const path = await workbook('status-active.xlsx', [
        utc(2024, 1, 5, 10, 30),
        utc(2024, 1, 6),
        utc(2024, 1, 7, 8),
        utc(2024, 1, 8, 9, 15),
      ]);
      const { mapping, notes } = await initMapping({ path });
      expect(mapping.columns.Active).toBe('isActive');
      expect(mapping.columns.Status).toBe('metadata.status');
      expect(mapping.fields).toEqual({});
      expect(notes.join('\n')).toContain('"Active" feeds isActive; this one looks like it too: kept in metadata');
      const candidates = await validateWith(path, settled(mapping));
      expect(candidates.map((c) => c.valid && c.item.isActive)).toEqual([true, false, true, false]);
    });

    it("a date column of real Excel dates and text dates: one rule reads both (the text's format, the dates as they are)", async () => {
      const path = await workbook('mixed-dates.xlsx', [
        utc(2024, 1, 5, 10, 30),
        '06.01.2024 11:00',
        utc(2024, 1, 7),
        '08.01.2024 09:15',
        utc(2024, 1, 9, 8),
        '31.02.2024 10:00',
        '10.01.2024 12:00',
        '11.01.2024 13:00',
        '12.01.2024 14:00',
        '13.01.2024 15:00',
      ]);
      const { mapping, notes } = await initMapping({ path });
      expect(mapping.columns.Joined).toEqual({ field: 'createdAt', format: 'dd.MM.yyyy HH:mm', timeZone: 'UTC' });
      expect(Object.keys(mapping.decisions ?? {})).toEqual(['Joined']);
      const joined = notes.find((n) => n.startsWith('"Joined"'));
      expect(joined).toContain(
        '3 of its 10 sampled cells are ISO dates (read as they are), the others text in "dd.MM.yyyy HH:mm"',
      );
      expect(joined).toContain(
        '1 of its 10 sampled cells is not a date in "dd.MM.yyyy HH:mm": "31.02.2024 10:00" (line 7)',
      );
      // settled with the zone the shop is in
      const zoned = {
        ...mapping,
        columns: { ...mapping.columns, Joined: { ...(mapping.columns.Joined as object), timeZone: 'Europe/Oslo' } },
      };
      const candidates = await validateWith(path, settled(zoned));
      expect(candidates.slice(0, 4).map((c) => c.valid && c.item.createdAt)).toEqual([
        '2024-01-05T09:30:00.000Z',
        '2024-01-06T10:00:00.000Z',
        '2024-01-06T23:00:00.000Z',
        '2024-01-08T08:15:00.000Z',
      ]);
      expect(candidates.filter((c) => !c.valid).map((c) => c.line)).toEqual([7]);
    });
  });
});
