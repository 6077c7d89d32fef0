/**
 * What a cell's number format makes of its number, in the kinds the reader treats differently:
 * - `general`: the number as Excel shows it in General (also `@`, Text, which shows a number so);
 * - `date`: a date or date-time; `time`: a time of day alone (`h:mm`, `mm:ss`), whose date Excel hides;
 * - `elapsed`: a duration (`[h]:mm`, `[mm]:ss`), which counts past a day and is no date or time of day;
 * - `digits`: a fixed-width code of `0` placeholders and separators (`00000`, `000-00-0000`): Excel shows 7030
 *   as `07030`, and so does its CSV export, so the reader shows it so too;
 * - `other` (`#,##0.00`, `0%`, currency, `0" days"`, several sections): display around a number; the number itself
 *   is read (a mapping reads values, and `12.5%` or `1,234.50` would need reading back).
 */
export type NumberFormat =
  | { kind: 'general' | 'date' | 'time' | 'other' }
  | { kind: 'elapsed'; code: string }
  | { kind: 'digits'; code: string; parts: DigitPart[] };

/** A placeholder for one digit (`0`), or literal text. */
type DigitPart = { digit: true } | { digit: false; text: string };

export const GENERAL: NumberFormat = { kind: 'general' };
const OTHER: NumberFormat = { kind: 'other' };

/**
 * Excel's built-in formats (ECMA-376 §18.8.30) that are not `other`: 0 General and 49 Text; the dates 14–17, 22,
 * 27–31, 34–36, 50–58, 71–74, 77, 81; the times of day 18–21, 45, 47, 75, 76, 78, 80; the durations 46, 79
 * (`[h]:mm:ss`). The East Asian 32–33 are times in every locale Excel has; they are read as dates, as before.
 */
const BUILT_IN = new Map<number, NumberFormat>([
  [0, GENERAL],
  [49, GENERAL],
  ...[14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58].map(
    (id) => [id, { kind: 'date' }] as const,
  ),
  ...[71, 72, 73, 74, 77, 81].map((id) => [id, { kind: 'date' }] as const),
  ...[18, 19, 20, 21, 45, 47, 75, 76, 78, 80].map((id) => [id, { kind: 'time' }] as const),
  [46, { kind: 'elapsed', code: '[h]:mm:ss' }],
  [79, { kind: 'elapsed', code: '[h]:mm:ss' }],
]);

export function builtInFormat(id: number): NumberFormat {
  return BUILT_IN.get(id) ?? OTHER;
}

export function formatOf(code: string): NumberFormat {
  if (/^(general|@)$/i.test(code.trim())) return GENERAL;
  const unquoted = code.replace(/"[^"]*"/g, '').replace(/\\./g, '');
  if (/\[(h+|m+|s+)]/i.test(unquoted)) return { kind: 'elapsed', code };
  if (isDateFormat(code)) {
    const bare = bareCode(code);
    return /[hs]/i.test(bare) && !/[ydbeg]/i.test(bare) ? { kind: 'time' } : { kind: 'date' };
  }
  const parts = digitParts(code);
  return parts ? { kind: 'digits', code, parts } : OTHER;
}

/**
 * A format code shows a date when a date or time token (y m d h s, b for Buddhist years) remains once quoted text,
 * escaped characters, `[…]` (colours, locales, conditions) and padding/fill characters are taken out: exceljs' rule,
 * with escapes (`0.0 \k\m`) read as the text they are.
 */
export function isDateFormat(code: string): boolean {
  return /[ymdhsb]/i.test(bareCode(code));
}

function bareCode(code: string): string {
  return code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[[^\]]*]/g, '')
    .replace(/General/gi, '');
}

/**
 * `000-00-0000` as placeholders and separators (`- ( ) +` and space; `.` and `/` quoted or escaped, as bare they
 * are a decimal point and a fraction); undefined for any other code (one section, nothing else).
 */
function digitParts(code: string): DigitPart[] | undefined {
  const parts: DigitPart[] = [];
  for (const token of code.match(/"[^"]*"|\\.|./g) ?? []) {
    if (token === '0') parts.push({ digit: true });
    else if (/^[-\s()+]$/.test(token)) parts.push({ digit: false, text: token });
    else if (/^("[-\s()+./]*"|\\[-\s()+./])$/.test(token)) {
      parts.push({ digit: false, text: token.startsWith('"') ? token.slice(1, -1) : token.slice(1) });
    } else return undefined; // a word (`0" days"`) is a unit around a number, not part of a code
  }
  const digits = parts.filter((p) => p.digit).length;
  // a lone "0" (built-in 1) pads nothing: a number shown in it is its digits
  return digits > 1 || (digits === 1 && parts.length > 1) ? parts : undefined;
}

/** A whole number's digits in a `digits` format: zeros in front, digits past the placeholders in the first one. */
export function showDigits(integer: string, parts: DigitPart[]): string {
  const negative = integer.startsWith('-');
  const digits = negative ? integer.slice(1) : integer;
  const slots = parts.filter((p) => p.digit).length;
  const padded = digits.padStart(slots, '0');
  let next = padded.length - slots; // the first placeholder takes what the others leave
  let first = true;
  let text = '';
  for (const part of parts) {
    if (!part.digit) text += part.text;
    else if (first) {
      text += padded.slice(0, next + 1);
      next++;
      first = false;
    } else text += padded[next++];
  }
  return negative ? `-${text}` : text;
}
