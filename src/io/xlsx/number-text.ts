/**
 * A number cell's `<v>` text as the digits Excel shows: worked on the decimal digits the file holds, never through a
 * JavaScript double (12345678901234567000 as a double prints 12345678901234567168: digits nobody wrote). Excel
 * keeps and shows 15 significant digits; beyond them a fraction is rounded as Excel shows it (0.30000000000000004
 * is 0.3), but a whole-number part longer than that (an ID or card number stored as a number) cannot be shown
 * exactly, so it is refused rather than rounded or padded with invented digits.
 */

/**
 * XML Schema double syntax (`-1.5E-3`, `+7`, `.5`, `5.`), less what Excel never writes and Number() would accept
 * or read otherwise: whitespace, hex (`0x10`), `INF`, `NaN`, an empty text.
 */
const DOUBLE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,6}))?$/;

export const SHOWN_DIGITS = 15;

export type NumberReading =
  | { kind: 'number'; text: string; integer: boolean }
  | { kind: 'not-a-number' }
  | { kind: 'too-long'; digits: number };

export function readNumber(value: string): NumberReading {
  const m = DOUBLE.exec(value);
  if (!m || (m[2] === '' && !m[3])) return { kind: 'not-a-number' };
  const negative = m[1] === '-';
  const whole = m[2]!.replace(/^0+/, '');
  const fraction = m[3] ?? '';
  const exponent = Number(m[4] ?? 0);
  // significant digits, and where the decimal point falls counted from their start (negative: zeros before them)
  const leadingZeros = whole === '' ? fraction.length - fraction.replace(/^0+/, '').length : 0;
  let digits = (whole + fraction).replace(/^0+/, '').replace(/0+$/, '');
  let point = (whole === '' ? -leadingZeros : whole.length) + exponent;
  if (digits === '') return { kind: 'number', text: '0', integer: true };
  if (point > 309 || point < -323) return { kind: 'not-a-number' }; // past a double's range: Excel never writes it
  const wholeDigits = Math.max(0, Math.min(point, digits.length));
  if (wholeDigits > SHOWN_DIGITS) return { kind: 'too-long', digits: wholeDigits };
  if (digits.length > SHOWN_DIGITS) ({ digits, point } = roundTo(digits, point, SHOWN_DIGITS));
  const text = plainText(digits, point);
  return { kind: 'number', text: negative && text !== '0' ? `-${text}` : text, integer: !text.includes('.') };
}

/** Round half away from zero, as Excel shows a number, to `keep` significant digits. */
function roundTo(digits: string, point: number, keep: number): { digits: string; point: number } {
  let kept = digits.slice(0, keep);
  if (digits.charCodeAt(keep) >= 53 /* '5' */) {
    const up = (BigInt(kept) + 1n).toString();
    if (up.length > kept.length) point++;
    kept = up;
  }
  return { digits: kept.replace(/0+$/, '') || '0', point };
}

/** Significant digits and the point's place as plain decimal text: no exponent ("1e+21" is no member's ID). */
function plainText(digits: string, point: number): string {
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
