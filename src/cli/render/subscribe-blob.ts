/**
 * `subscribe --from` in words: why a blob could not be read, what it lacks, and where each value came from.
 * Never a value from the blob (it may hold a token, or be a secret pasted by mistake): keys and lengths only.
 */
import {
  BLOB_LIMIT_BYTES,
  isKeyFor,
  type BlobProblem,
  type DeviceField,
  type ReadBlob,
} from '../../core/subscribe/device-blob.js';
import type { SubscriptionDraft } from '../../core/subscribe/index.js';
import { notJsonText } from '../../core/json-document.js';
import { UsageError } from '../../errors.js';
import { fieldName } from './subscribe-problems.js';
import { keysLookedFor } from './subscribe-words.js';

const EXAMPLE = '{"tokenHandle": "…", "platform": "ios", "installationId": "…"}';
const WHAT: Record<DeviceField, string> = {
  tokenHandle: 'device tokens',
  platform: 'platforms',
  installationId: 'installation ids',
};
const NOUN: Record<DeviceField, string> = {
  tokenHandle: 'device token',
  platform: 'platform',
  installationId: 'installation id',
};

/** A key as the blob wrote it, quoted with JSON's escapes (no control characters reach the terminal). */
const quoted = (key: string) => JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);

function problemText(problem: BlobProblem): string {
  switch (problem.kind) {
    case 'empty':
      return `is empty; expected a JSON object such as ${EXAMPLE}`;
    case 'too-large':
      return `is larger than ${problem.limitBytes / 1024 / 1024} MiB; expected one device's JSON object`;
    case 'not-json':
      return `is not JSON${problem.where ? ` ${problem.where}` : ''}; expected an object such as ${EXAMPLE}`;
    case 'curly-quotes':
      return `is ${notJsonText(problem)}`;
    case 'not-object':
      return `is a JSON ${problem.got}, not an object; expected ${EXAMPLE}`;
    case 'ambiguous':
      return `holds different ${WHAT[problem.field]} in ${problem.keys.map(quoted).join(' and ')}; memberctl does not guess which one is meant`;
    case 'repeated':
      return `gives ${quoted(problem.key)} twice (line ${problem.line}); memberctl does not guess which ${NOUN[problem.field]} is meant`;
    case 'not-text':
      return `${quoted(problem.key)} is a JSON ${problem.got}, not the ${NOUN[problem.field]} as text`;
  }
}

function problemHint(problem: BlobProblem): string {
  if (problem.kind === 'ambiguous' || problem.kind === 'repeated') {
    return `pass the one to send with ${fieldName(problem.field)} (a flag wins over the blob), or keep only one of them in the blob`;
  }
  if (problem.kind === 'curly-quotes') {
    return 'a notes or chat app turned the quotes typographic: copy the JSON from the app\'s log or a plain-text editor, or retype the quotes as "';
  }
  if (problem.kind === 'not-json' || problem.kind === 'empty' || problem.kind === 'not-object') {
    return 'copy the whole object, from { to } (the text of a log line around it may stay); `memberctl subscribe --help` lists the keys read';
  }
  return 'fix the blob, or give the value with its flag (a flag wins over the blob)';
}

export function blobError(file: string, problems: readonly BlobProblem[]): UsageError {
  return new UsageError(`--from ${file}: ${problems.map(problemText).join('; ')} (nothing sent)`, {
    code: 'invalid-device-blob',
    hint: [...new Set(problems.map(problemHint))].join('; '),
    details: { file, problems },
  });
}

export const tooLargeProblem: BlobProblem = { kind: 'too-large', limitBytes: BLOB_LIMIT_BYTES };

/** Exit 2 for fields neither the flags nor the blob gave, with no terminal to ask on. */
export function missingFromBlobError(
  missing: readonly (keyof SubscriptionDraft)[],
  file: string,
  keysSeen: readonly string[],
  why: string,
): UsageError {
  const fields = missing.filter((field): field is DeviceField => field !== 'customerId');
  // A key that is there but gave nothing (null, "") is named, or "none of installationId…; it has installationId" reads as a contradiction.
  const emptyKeys = (field: DeviceField) => keysSeen.filter((key) => isKeyFor(field, key));
  const lacks = fields
    .map((field) => {
      const empty = emptyKeys(field);
      return `no ${NOUN[field]} (none of ${keysLookedFor(field)}${empty.length > 0 ? `; ${empty.map(quoted).join(', ')} ${empty.length > 1 ? 'are' : 'is'} null or empty` : ''})`;
    })
    .join(', ');
  const has =
    keysSeen.length === 0
      ? 'no keys'
      : `${keysSeen.slice(0, 12).map(quoted).join(', ')}${keysSeen.length > 12 ? ', …' : ''}`;
  const flags = missing.map((field) => fieldName(field));
  const blobPart = fields.length > 0 ? `; the --from ${file} blob has ${lacks}; it has ${has}` : '';
  return new UsageError(`missing ${flags.join(', ')}${blobPart} (${why}; nothing sent)`, {
    code: 'missing-values',
    hint: missingHint(fields, missing.includes('customerId')),
    details: { missing: flags, file, keysSeen },
  });
}

function missingHint(fields: readonly DeviceField[], customerMissing: boolean): string {
  const customer = customerMissing
    ? 'pass CUSTOMER_ID as the argument after subscribe (it is never read from the blob)'
    : '';
  if (fields.length === 0) return customer;
  const device = `add the value to the blob under one of those keys, or pass ${fields.map((field) => fieldName(field)).join(', ')}`;
  return customer ? `${customer}; ${device}` : device;
}

/** What the user is told about the blob: where each value came from, what was skipped, which flag won. */
export function blobNotes(
  file: string,
  blob: ReadBlob,
  sources: Partial<Record<DeviceField, string>>,
  overridden: readonly { field: DeviceField; key: string }[],
): string[] {
  const notes: string[] = [];
  if (blob.ignoredChars > 0)
    notes.push(
      `--from ${file}: read the JSON object inside the text (${blob.ignoredChars} characters around it left out)`,
    );
  const used = (Object.entries(sources) as [DeviceField, string][]).map(
    ([field, key]) => `${NOUN[field]} from ${quoted(key)}`,
  );
  if (used.length > 0) notes.push(`--from ${file}: ${used.join(', ')}`);
  for (const { field, key } of overridden)
    notes.push(`${fieldName(field)} wins over ${quoted(key)} in the --from blob`);
  return notes;
}
