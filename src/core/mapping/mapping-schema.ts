/**
 * The mapping file's own zod schemas, piece by piece (the file, one column rule, one field rule), so that an error
 * names the exact key, and a misspelt key, transform or conversion gets a did-you-mean.
 */
import { z } from 'zod';
import { closestName } from './targets.js';

export const TRANSFORMS = ['trim', 'lowercase', 'uppercase', 'collapseSpaces'] as const;
export const CONVERSIONS = ['countryCode', 'e164'] as const;
export const CELL_TYPES = ['string', 'number', 'boolean', 'json'] as const;
/** What a cell the rule cannot read does: make the record invalid (the default), or leave the field out. */
export const ON_INVALID = ['refuse', 'omit'] as const;

export type Transform = (typeof TRANSFORMS)[number];

const jsonValue: z.ZodType<unknown> = z.json();

/** How one cell is read: the options a column rule and a field rule share. */
const cellOptions = {
  type: z.enum(CELL_TYPES).optional(),
  // one transform may be written on its own: "trim" reads as ["trim"]
  transform: z
    .preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(z.enum(TRANSFORMS)))
    .optional(),
  /** Cells that mean "no value" in this export ("0000-00-00"): read as an empty cell, the field left out. */
  treatAsEmpty: z.array(z.string().min(1)).min(1).optional(),
  values: z.record(z.string(), jsonValue).optional(),
  otherwise: jsonValue.optional(),
  convert: z.enum(CONVERSIONS).optional(),
  defaultRegion: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'expected an ISO 3166-1 alpha-2 country code such as "US"')
    .optional(),
  format: z.string().min(1).optional(),
  timeZone: z.string().min(1).optional(),
  twoDigitYearStart: z.number().int().min(1000).max(9900).optional(),
  /** An empty cell is sent as null (clears the field) instead of leaving the field out. */
  emptyAsNull: z.boolean().optional(),
  /** "omit": a cell the rule or the API's schema refuses is left out, and counted, instead of the whole record. */
  onInvalid: z.enum(ON_INVALID).optional(),
};

export const columnRuleSchema = z.strictObject({ field: z.string().min(1), ...cellOptions });

export const fieldRuleSchema = z.strictObject({
  value: jsonValue.optional(),
  default: jsonValue.optional(),
  firstOf: z.array(z.string().min(1)).min(1).optional(),
  column: z.string().min(1).optional(),
  ...cellOptions,
});

export const mappingFileSchema = z.strictObject({
  description: z.string().optional(),
  columns: z.record(z.string().min(1), z.unknown()).optional(),
  fields: z.record(z.string().min(1), z.unknown()).optional(),
  /** What map init could not tell from the file: each entry refuses the mapping until the user settles it and deletes it. */
  decisions: z.record(z.string(), z.string()).optional(),
});

export type CellOptions = Omit<z.infer<typeof columnRuleSchema>, 'field'>;

const KNOWN_KEYS: Record<string, readonly string[]> = {
  file: Object.keys(mappingFileSchema.shape),
  column: Object.keys(columnRuleSchema.shape),
  field: Object.keys(fieldRuleSchema.shape),
};

/** One line per issue (unknown keys first, one line each): where (columns["Status"].transform[1]) and what, with a did-you-mean. */
export function describeSchemaIssues(
  issues: readonly z.core.$ZodIssue[],
  where: string,
  kind: keyof typeof KNOWN_KEYS,
): string[] {
  const unknownFirst = [
    ...issues.filter((i) => i.code === 'unrecognized_keys'),
    ...issues.filter((i) => i.code !== 'unrecognized_keys'),
  ];
  return unknownFirst.flatMap((issue) => {
    const at =
      where + issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') || '(top level)';
    if (issue.code !== 'unrecognized_keys') return [`${at}: ${describeValueIssue(issue)}`];
    const known = issue.path.length === 0 ? KNOWN_KEYS[kind]! : [];
    return issue.keys.map((key) => {
      const suggestion = closestName(key, known);
      return `${at}: unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; known keys: ${known.join(', ')}`;
    });
  });
}

function describeValueIssue(issue: z.core.$ZodIssue): string {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_value': {
      const options = issue.values.map(String);
      const suggestion = typeof input === 'string' ? closestName(input, options) : undefined;
      return `unknown ${ruleWord(issue.path)} ${JSON.stringify(input)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; expected one of ${options.join(', ')}`;
    }
    case 'invalid_type':
      return input === undefined ? 'missing' : `expected ${issue.expected}, got ${JSON.stringify(input)}`;
    default:
      return issue.message;
  }
}

function ruleWord(path: readonly PropertyKey[]): string {
  const key = path.find((p) => typeof p === 'string');
  return key === 'transform'
    ? 'transform'
    : key === 'convert'
      ? 'conversion'
      : key === 'type'
        ? 'type'
        : key === 'onInvalid'
          ? 'onInvalid'
          : 'value';
}
