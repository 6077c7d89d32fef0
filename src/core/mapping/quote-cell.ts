/**
 * A cell as a message quotes it: whole when short, else its first characters and its length, so that a 10 MB cell
 * costs a line, not 10 MB, in every error, rejects reason and --json (docs/safety.md#work-per-cell).
 */

/** Characters of a cell a message quotes before it cuts. */
export const QUOTED_CELL_CHARS = 40;

/** `"Narnia"`, or `"aaaa…" (10,485,760 characters)` past QUOTED_CELL_CHARS. */
export function quoteCell(cell: string): string {
  return cell.length <= QUOTED_CELL_CHARS ? `"${cell}"` : `"${head(cell)}…" (${characters(cell)})`;
}

/** The first QUOTED_CELL_CHARS characters, never a surrogate pair cut in two (the message would hold a lone half). */
function head(cell: string): string {
  const cut = /[\uD800-\uDBFF]/.test(cell[QUOTED_CELL_CHARS - 1]!) ? QUOTED_CELL_CHARS - 1 : QUOTED_CELL_CHARS;
  return cell.slice(0, cut);
}

const characters = (cell: string) => `${cell.length.toLocaleString('en-US')} characters`;

/**
 * A name or id a report shows unquoted (a memberId beside an invalid record, a JSON key the API does not know):
 * whole up to 64 characters (the API's memberIds take 36, its keys fewer), else cut like a quoted cell,
 * `aaaa… (10,485,760 characters)`; the record itself, as written, is still in the rejects file's input.
 */
export function shortened(text: string): string {
  return text.length <= 64 ? text : `${head(text)}… (${characters(text)})`;
}

/** The longest cell each conversion reads; a longer one is refused at once, unread (docs/safety.md#work-per-cell). */
export const CELL_LIMITS = {
  /** The longest country name in the languages read is 56 characters ("Bolivia (Plurinational State of)" …). */
  country: 100,
  /** E.164 has at most 15 digits; written with spaces, brackets, dashes and an extension, 64 is ample. */
  phone: 64,
  /** "September 30, 2024 11:59:59.999 p.m. +14:00" is 44; room for doubled spaces. */
  date: 100,
} as const;

/** `too long (N characters): a country is at most 100` */
export function tooLong(cell: string, what: string, limit: number): string {
  return `too long (${characters(cell)}): ${what} is at most ${limit}`;
}
