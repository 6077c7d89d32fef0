/**
 * The metadata key map init gives a header: camelCase of its words, the parenthesised hint left out ("Company Name"
 * → companyName, "Titles ID (Mr = 1, …)" → titlesId); a single word keeps its own case past the first letter
 * ("updatedAt"), unless it is all capitals ("LEID" → leid).
 */
export function metadataKey(header: string): string {
  const words = header
    .replace(/\([^)]*\)/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  if (words.length === 1) {
    const [word] = words as [string];
    return word === word.toUpperCase() ? word.toLowerCase() : word[0]!.toLowerCase() + word.slice(1);
  }
  return (
    words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join('') ||
    'column'
  );
}
