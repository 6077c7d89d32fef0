/**
 * Whether a decimal number as written survives being read as a double: JSON.parse and Number() round
 * 12345678901234567890 to 12345678901234567000, 9007199254740993 to 9007199254740992 and 1e-400 to 0 without a
 * word, and JSON.stringify then sends the rounded value. A number survives when its decimal value equals that of
 * the shortest text that reads back as the same double (what JSON.stringify writes): 0.1 and 1.50 survive, 2^53 + 1
 * does not. Leading and trailing zeros, the exponent's form and the sign of zero do not count.
 */

import { jsonStringEnd, valuePath, type JsonFrame } from './json-text.js';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The decimal value of a JSON-style number as sign, significant digits and exponent, e.g. "-123e-2"; undefined if none. */
function canonical(text: string): string | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const fraction = m[3] ?? '';
  let digits = (m[2]! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = Number(m[4] ?? 0) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return `${m[1]}${digits}e${exponent}`;
}

/** True when `text` (a JSON number literal, or a CSV cell of one) is held exactly by the double `Number(text)`. */
export function survivesAsDouble(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return canonical(text) === canonical(String(value));
}

/**
 * Where text may hold a number that does not survive: a number token (at the start, or after : , or [) of 16 or
 * more digits (a dot may split them) or with an exponent. Digits inside a string (a token, a phone number) are
 * preceded by other characters and pass; a string holding ", 1e5" only costs the exact scan.
 */
const MAY_LOSE = /(?:^|[:,[])\s*-?(?:\d[\d.]{15}|\d[\d.]*[eE])/;

export interface LossyNumber {
  /** The dotted path of the value ("customProperties.cardNo", "tags[2]"); '' for a bare number. */
  path: string;
  /** The number as written, and as it would be sent. */
  written: string;
  sent: string;
  /** Its line in the text (0-based). */
  line: number;
}

/**
 * The first number in `text` (valid JSON) that a double cannot hold as written, with where it is; undefined when
 * every number survives. Text without a number token of 16 digits or an exponent is passed after one regex test.
 */
export function firstLossyNumber(text: string): LossyNumber | undefined {
  if (!MAY_LOSE.test(text)) return undefined;
  const stack: (JsonFrame & { keys: boolean })[] = [];
  let line = 0;
  const here = () => valuePath(stack[stack.length - 1]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = jsonStringEnd(text, i);
      const top = stack[stack.length - 1];
      // a string in an object is a key when a colon follows it
      if (top?.keys && /^\s*:/.test(text.slice(end + 1, end + 8)))
        top.last = JSON.parse(text.slice(i, end + 1)) as string;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({ keys: c === 0x7b, path: here(), last: '', index: 0 });
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.index++;
    } else if (c === 0x0a) line++;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end++;
      const written = text.slice(i, end);
      if (!survivesAsDouble(written)) return { path: here(), written, sent: JSON.stringify(Number(written)), line };
      i = end - 1;
    }
  }
  return undefined;
}
