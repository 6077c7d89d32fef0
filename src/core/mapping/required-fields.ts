/**
 * A required field (memberId, isActive, createdAt) that no column and no `fields` rule gives would make every row
 * invalid the same way: it is reported once, before any row is read, with the headers that look like it.
 */
import { UsageError } from '../../errors.js';
import type { ResolvedColumn, ResolvedField } from './csv-columns.js';
import { editDistance, normalizeName } from './targets.js';
import { quotedHeader } from '../../io/csv-record-core.js';

export const REQUIRED_FIELDS = ['memberId', 'isActive', 'createdAt'] as const;

/** Words exports use for each required field, best first (lenient names: case, spaces, _ and - ignored). */
const LOOKALIKES: Record<(typeof REQUIRED_FIELDS)[number], string[]> = {
  memberId: [
    'member id',
    'customer id',
    'user id',
    'contact id',
    'record id',
    'client id',
    'account id',
    'customer number',
    'member number',
    'id',
    'uuid',
    'guid',
  ],
  isActive: ['active', 'is active', 'status', 'enabled', 'state', 'subscribed', 'member status', 'account status'],
  createdAt: [
    'created',
    'created at',
    'create date',
    'created date',
    'creation date',
    'date created',
    'signup date',
    'sign up date',
    'registered',
    'registration date',
    'joined',
    'member since',
    'date added',
  ],
};
const STEMS: Record<(typeof REQUIRED_FIELDS)[number], RegExp> = {
  memberId: /(^|[^a-z])id$|^id|number$|uuid|guid/,
  isActive: /activ|status|enabl|state/,
  createdAt: /creat|signup|regist|joined|since|added/,
};

/** Up to `max` headers that look like `field`: a known name first, then a likely stem, then the nearest spelling. */
export function headersLike(field: (typeof REQUIRED_FIELDS)[number], headers: readonly string[], max = 5): string[] {
  const known = LOOKALIKES[field].map(normalizeName);
  const score = (header: string): number => {
    const name = normalizeName(header);
    const at = known.indexOf(name);
    if (at !== -1) return at;
    const spaced = header
      .toLowerCase()
      .replace(/[\s_-]+/g, ' ')
      .trim();
    if (STEMS[field].test(spaced) || STEMS[field].test(name)) return 100;
    return editDistance(name, normalizeName(field), 3) <= 3 ? 200 : Infinity;
  };
  return headers
    .map((header) => ({ header, score: score(header) }))
    .filter((h) => h.score !== Infinity)
    .sort((a, b) => a.score - b.score)
    .slice(0, max)
    .map((h) => h.header);
}

const EXAMPLE: Record<(typeof REQUIRED_FIELDS)[number], string> = {
  memberId: '{"columns": {"<header>": "memberId"}}',
  isActive:
    '{"columns": {"<header>": {"field": "isActive", "values": {"active": true, "lapsed": false}}}} or {"fields": {"isActive": {"value": true}}}',
  createdAt:
    '{"columns": {"<header>": {"field": "createdAt", "format": "yyyy-MM-dd HH:mm", "timeZone": "Europe/Oslo"}}} or {"fields": {"createdAt": {"value": "2024-01-01T00:00:00Z"}}}',
};

export function checkRequiredFields(
  columns: readonly ResolvedColumn[],
  fields: readonly ResolvedField[],
  headers: readonly string[],
  file: string,
  headerLine = 1,
): void {
  const given = new Set<string>();
  for (const column of columns) for (const feed of column.feeds) given.add(feed.path);
  for (const { rule, indices } of fields) if (rule.value || rule.fallback || indices.length > 0) given.add(rule.path);
  const missing = REQUIRED_FIELDS.filter((field) => !given.has(field));
  if (missing.length === 0) return;
  const parts = missing.map((field) => {
    const like = headersLike(field, headers);
    return `${field} (${like.length > 0 ? `closest headers: ${like.map(quotedHeader).join(', ')}` : 'no header looks like it'})`;
  });
  throw new UsageError(
    `${file} line ${headerLine}: no column gives the required field${missing.length > 1 ? 's' : ''} ${parts.join('; ')}`,
    {
      code: 'missing-required-field',
      hint: `Every record needs ${missing.join(', ')}. In a mapping file (--map): ${missing.map((f) => EXAMPLE[f]).join('; ')}. \`memberctl map init ${file}\` writes a starter.`,
    },
  );
}
