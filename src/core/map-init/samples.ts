/** A few distinct cells for a note or a question: `e.g. "a", "b", "c"`. */
export function samplesOf(cells: readonly string[], max = 3): string {
  const shown = [...new Set(cells)].slice(0, max).map((c) => JSON.stringify(c));
  return shown.length ? `e.g. ${shown.join(', ')}` : 'no value in the sample';
}
