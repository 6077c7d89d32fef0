/**
 * Text from the data (a cell, a memberId, a server's message, a file name) may hold control characters: ESC
 * sequences that recolour, clear or retitle a terminal (OSC), a carriage return that overwrites a line, bidi
 * overrides that reorder it. Output shows them escaped (\u001b, \u202e), the way JSON spells them.
 */

/** The colour sequences memberctl's own styles produce (bold, dim, red, green, yellow, cyan and their resets). */
const OWN_STYLES = '\\x1b\\[(?:1|2|22|31|32|33|36|39)m';
const CONTROL = '[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';
const WITH_STYLES = new RegExp(`${OWN_STYLES}|${CONTROL}`, 'g');
const ALONE = new RegExp(CONTROL, 'g');

/** \u001b, the JSON spelling: a --json line that carries such a character (DEL, C1, bidi) stays valid JSON. */
function escaped(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character escaped, newlines and tabs kept. With `keepStyles`, the colour sequences
 * memberctl itself draws survive (a cell holding the same sequence only changes a colour, nothing more).
 */
export function printable(text: string, keepStyles: boolean): string {
  return text.replace(keepStyles ? WITH_STYLES : ALONE, (match) => (match.length > 1 ? match : escaped(match)));
}
