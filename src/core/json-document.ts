/**
 * A JSON file a person writes and keeps (the --map file, the settings file) or pastes (subscribe --from, which
 * also finds an object inside a log line: subscribe/device-blob.ts): read as written, or refused with where. JSON.parse alone would take a key given twice in one object without a word (the last one wins, so half a
 * block vanishes), and would stop at a Notepad byte order mark or at typographic quotes with an offset no editor
 * shows. Each caller puts its own file name and hint words around the problems found here.
 */
import { duplicateKeys, type DuplicateKey } from '../io/json-duplicate-keys.js';
import { firstCurlyQuote, jsonErrorPosition, jsonErrorReason } from './json-position.js';

export type NotJson =
  | { kind: 'curly-quotes'; line: number; column: number }
  /** `where` is "(line 4, column 3)", or '' when JSON.parse did not say. */
  | { kind: 'syntax'; where: string; reason: string };

export type JsonDocument =
  | {
      ok: true;
      json: unknown /** the text parsed (without its BOM): duplicateKeys and positions count in it */;
      text: string;
    }
  | { ok: false; problem: NotJson };

/** The text without a leading UTF-8 byte order mark (Notepad, some exports): no part of the JSON. */
export function withoutBom(raw: string): string {
  return raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
}

/** Parses a whole JSON document; a leading byte order mark is no part of the JSON. */
export function parseJsonDocument(raw: string): JsonDocument {
  const text = withoutBom(raw);
  try {
    return { ok: true, json: JSON.parse(text), text };
  } catch (error) {
    const curly = firstCurlyQuote(text);
    if (curly) return { ok: false, problem: { kind: 'curly-quotes', ...curly } };
    return {
      ok: false,
      problem: { kind: 'syntax', where: jsonErrorPosition(text, error), reason: jsonErrorReason(error) },
    };
  }
}

/** "not valid JSON (line 4, column 3): Expected double-quoted property name", or the curly quotes and where. */
export function notJsonText(problem: NotJson): string {
  if (problem.kind === 'curly-quotes')
    return `not valid JSON: it has curly quotes (“ ”, first at line ${problem.line}, column ${problem.column}) where JSON needs straight ones (")`;
  return `not valid JSON${problem.where ? ` ${problem.where}` : ''}: ${problem.reason}`;
}

export const CURLY_QUOTES_HINT =
  'an editor or a chat app turned the quotes typographic: retype them as " in a plain-text editor (JSON takes straight quotes only)';

/** Keys given twice in one object of a parsed document (up to 20), each with its dotted path and 0-based line. */
export function repeatedKeys(document: { json: unknown; text: string }): DuplicateKey[] {
  return duplicateKeys(document.text, document.json);
}

/** '"columns.N.field" is given twice in one object (line 2): only the last would be read' */
export function repeatedKeyText(duplicate: DuplicateKey): string {
  return `${JSON.stringify(duplicate.path)} is given twice in one object (line ${duplicate.line + 1}): only the last would be read`;
}

export const REPEATED_KEY_HINT =
  'keep one of them (merge the two blocks, or delete the one not meant); a JSON reader silently takes the last';
