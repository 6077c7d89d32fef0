/** Where JSON.parse stopped, as a person finds it in an editor: "(line 4, column 3)", or '' if it does not say. */
export function jsonErrorPosition(text: string, error: unknown): string {
  const match = /position (\d+)/.exec((error as Error).message);
  if (!match) return '';
  const before = text.slice(0, Number(match[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `(line ${line}, column ${column})`;
}

/** JSON.parse's message without the offset and the echo of the text (the position says where, in lines). */
export function jsonErrorReason(error: unknown): string {
  return (error as Error).message
    .replace(/\s*(?:in JSON )?at position \d+/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/, ".*" is not valid JSON$/s, '');
}

/**
 * Typographic quotes (“ ” ‘ ’), which notes and chat apps and word processors put where JSON needs straight ones.
 * They are named, not read as JSON's: which were meant as delimiters and which belong to a value cannot be told
 * for sure, and a value must land exactly as written.
 */
const CURLY_QUOTE = /[\u201C\u201D\u201E\u201F\u2018\u2019]/;

/** Where the first typographic quote in `text` is (1-based line and column), or undefined when there is none. */
export function firstCurlyQuote(text: string): { line: number; column: number } | undefined {
  const at = CURLY_QUOTE.exec(text)?.index;
  if (at === undefined) return undefined;
  const before = text.slice(0, at);
  return { line: before.split('\n').length, column: at - before.lastIndexOf('\n') };
}
