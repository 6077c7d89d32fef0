/**
 * The rules for a column whose name says a date or a boolean field, once its values agree: the date's format, its
 * zone (asked when the cells carry no offset and the header names none), its day/month order (asked when the
 * sample cannot tell), its zero dates; a boolean's `values` map from the distinct cells, a word of unclear polarity
 * asked.
 */
import { readsAsBoolean, valuesMap } from './classify/booleans.js';
import type { Profile } from './classify/values.js';
import type { Proposal } from './decide.js';
import { samplesOf } from './samples.js';
import { dateOnly, midnightFormat } from './classify/dates.js';

type Take = (rule: unknown, why?: string[], extra?: Partial<Proposal>) => Proposal;

/** "0000-00-00", "0/0/00": how MySQL-backed shops and Outlook write "no date"; never a day. */
export const ZERO_DATE = /^0{1,4}[-./]0{1,2}[-./]0{1,4}\b/;

export function withoutZeros(sampled: { cells: readonly string[]; lines: readonly number[] }) {
  const keep = sampled.cells.map((c) => !ZERO_DATE.test(c));
  return { cells: sampled.cells.filter((_, i) => keep[i]), lines: sampled.lines.filter((_, i) => keep[i]) };
}

export function dateProposal(
  take: Take,
  field: string,
  profile: Profile,
  { cells, lines }: { cells: readonly string[]; lines: readonly number[] },
  column: string,
  zeros: readonly string[],
): Proposal {
  const date = { ...profile.date! };
  const rule: Record<string, unknown> = { field };
  if (date.format) rule.format = date.format;
  const format = date.format ? ` in "${date.format}"` : '';
  const why = [`its values are dates${format}`];
  if (date.iso > 0 && date.format)
    why.push(
      `${date.iso} of its ${cells.length} sampled cells are ISO dates (read as they are), the others text${format}`,
    );
  if (date.misses.length > 0) {
    const shown = date.misses.slice(0, 3).map((i) => `${JSON.stringify(cells[i])} (line ${lines[i]})`);
    const one = date.misses.length === 1;
    why.push(
      `${date.misses.length} of its ${cells.length} sampled cells ${one ? 'is not a date' : 'are not dates'}${format}: ${shown.join(', ')}${date.misses.length > 3 ? ', …' : ''}: ${one ? 'that record is' : 'those records are'} refused until fixed`,
    );
  }
  if (zeros.length > 0 && field === 'birthdate') {
    // exactly the placeholders seen: a typo ("1985-02-31") is no "no date", and stays a refused record
    const placeholders = [...new Set(zeros)];
    rule.treatAsEmpty = placeholders;
    why.push(
      `${zeros.length} of its cells are zero dates (${samplesOf(zeros, 1)}), the export's "no date": "treatAsEmpty": ${JSON.stringify(placeholders)} reads exactly ${placeholders.length === 1 ? 'that cell' : 'those cells'} as empty (the record is sent without a birthdate); any other cell that is not a date is refused with its record`,
    );
  } else if (zeros.length > 0)
    why.push(
      `${zeros.length} of its cells are zero dates (${samplesOf(zeros, 1)}): those records are refused until given a date`,
    );
  const asks: NonNullable<Proposal['asks']> = [];
  // a birthdate is a calendar date: midnight date-times are read as their day, never moved by a zone
  const plain = field === 'birthdate' && date.local ? midnightFormat(cells, date) : undefined;
  if (plain) {
    rule.format = plain;
    date.local = false;
    if (date.alternative) date.alternative = dateOnly(date.alternative);
    date.format = plain;
    why.push(
      `every sampled cell is at midnight: read as a calendar date ("format": "${plain}" reads the day and only that time; a cell with another time is refused), no zone (a zone would move the day)`,
    );
  }
  if (date.alternative)
    asks.push({
      kind: 'dateOrder',
      options: [date.format!, date.alternative],
      question: `"${column}" reads as "${date.format}" and as "${date.alternative}" (${samplesOf(cells, 4)}: no day above 12 in the sample): set "format" to the one the export uses`,
    });
  if (date.local && /\b(UTC|GMT)\b/i.test(column)) {
    rule.timeZone = 'UTC';
    why.push('times without an offset, but its header says they are UTC');
  } else if (date.local && field === 'birthdate') {
    rule.timeZone = 'UTC';
    asks.push({
      kind: 'timeZone',
      question: `"${column}" holds birthdates with times of day (${samplesOf(cells, 3)}): a birthdate is a calendar date, and a zone moves it ("1990-06-15 00:00" in Europe/Oslo is sent as 1990-06-14T22:00Z, the day before): "timeZone": "UTC" keeps each day as written; set another zone only if the times are real instants`,
    });
  } else if (date.local) {
    rule.timeZone = 'UTC';
    asks.push({
      kind: 'timeZone',
      question: `"${column}" holds date-times without an offset (${samplesOf(cells, 3)}): set "timeZone" to the zone they were written in (an IANA name such as Europe/Oslo; UTC is only a proposal)`,
    });
  }
  return take(Object.keys(rule).length === 1 ? field : rule, why, asks.length ? { asks } : {});
}

export function booleanProposal(
  take: Take,
  keep: (why: string[]) => Proposal,
  field: string,
  said: string,
  cells: readonly string[],
  column: string,
): Proposal {
  if (readsAsBoolean(cells)) return take(field, [`its values read as true/false (${samplesOf(cells)})`]);
  const values = valuesMap(cells);
  const known = values ? Object.values(values).filter((v) => v !== null).length : 0;
  if (!values || known === 0)
    return keep([`${said}, but its values (${samplesOf(cells, 4)}) say nothing about ${field}: kept in metadata`]);
  const unclear = Object.keys(values).filter((k) => values[k] === null);
  const rule = { field, values };
  if (unclear.length === 0) return take(rule, [`its words read as true/false: ${JSON.stringify(values)}`]);
  return take(rule, [], {
    asks: [
      {
        kind: 'values',
        question: `"${column}" → ${field}: what ${unclear.length === 1 ? 'does' : 'do'} ${unclear.map((w) => `"${w}"`).join(', ')} mean? Say true or false for each in "values" (the others: ${Object.entries(
          values,
        )
          .filter(([, v]) => v !== null)
          .map(([k, v]) => `"${k}" ${v}`)
          .join(', ')})`,
      },
    ],
  });
}
