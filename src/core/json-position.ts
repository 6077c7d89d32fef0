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
