/**
 * The import template: every field of the upsert item as a CSV header (dotted for nested objects) or a JSON
 * property, with one realistic example record, plus a table of each field's limits generated from the zod
 * schemas themselves, so the documentation cannot drift from what validate enforces.
 */
import { z } from 'zod';
import {
  ADDRESS_FIELDS,
  MEMBER_FIELDS,
  memberUpsertItemSchema,
  type Address,
  type MemberUpsertItem,
} from '../../schemas/index.js';

/** One example with every field set; `Required` makes a field added to the schema a compile error here. */
export const EXAMPLE_MEMBER = {
  memberId: 'M-000123',
  email: 'anna.berg@example.com',
  firstName: 'Anna',
  lastName: 'Berg',
  phone: '+46701234567',
  birthdate: '1988-04-12T00:00:00Z',
  address: {
    zipCode: '11122',
    city: 'Stockholm',
    addressLine1: 'Drottninggatan 12',
    addressLine2: 'lgh 1102',
    region: 'Stockholm',
    countryCode: 'SE',
  } satisfies Required<Address>,
  isActive: true,
  createdAt: '2019-03-01T09:30:00Z',
  genderId: 'F',
  selectedStoreId: 'STO-042',
  loyaltyProgram: 'Gold',
  isEmployee: false,
  nationality: 'SE',
  metadata: { source: 'crm-export', segment: 'B2C' },
  deceased: false,
  homeTelephone: '+4687654321',
  isMembershipFeePaid: true,
  // Strings, so the CSV template (whose cells are text unless --map types them) reads back as the same item.
  customProperties: { favoriteCategory: 'outdoor', referredBy: 'M-000077' },
} satisfies Required<MemberUpsertItem>;

/** What each field means, from the API description; the limits come from the schema. */
const MEANING: Record<keyof MemberUpsertItem, string> = {
  memberId: 'your unique id for the member',
  email: 'email address',
  firstName: 'first name',
  lastName: 'last name',
  phone: 'mobile phone',
  birthdate: 'birth date, ISO 8601 date-time',
  address: 'postal address (the address.* columns)',
  isActive: 'whether the member account is active',
  createdAt: 'when the member account was created, ISO 8601 date-time',
  genderId: 'gender identifier',
  selectedStoreId: 'preferred store',
  loyaltyProgram: 'program or tier',
  isEmployee: 'whether the member is an employee',
  nationality: 'nationality',
  metadata: 'string values under any key: one metadata.<key> column per key',
  deceased: 'whether the member is deceased',
  homeTelephone: 'home phone',
  isMembershipFeePaid: 'whether the membership fee has been paid',
  customProperties:
    'values of any JSON type under any key: one customProperties.<key> column per key (CSV cells are text; --map can type them)',
};
const ADDRESS_MEANING: Record<keyof Address, string> = {
  zipCode: 'postal code',
  city: 'city',
  addressLine1: 'street name and number',
  addressLine2: 'apartment number',
  region: 'region',
  countryCode: 'country code',
};

/** CSV columns, in the API's order: nested objects flattened to dotted paths. */
export function templateColumns(): string[] {
  return MEMBER_FIELDS.flatMap((field): string[] => {
    if (field === 'address') return ADDRESS_FIELDS.map((key) => `address.${key}`);
    if (field === 'metadata' || field === 'customProperties')
      return Object.keys(EXAMPLE_MEMBER[field]).map((key) => `${field}.${key}`);
    return [field];
  });
}

function exampleCell(column: string): string {
  const [field, key] = column.split('.') as [keyof MemberUpsertItem, string | undefined];
  const value: unknown =
    key === undefined ? EXAMPLE_MEMBER[field] : (EXAMPLE_MEMBER[field] as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function templateCsv(): string {
  const columns = templateColumns();
  return `${columns.map(csvCell).join(',')}\n${columns.map((column) => csvCell(exampleCell(column))).join(',')}\n`;
}

export function templateJson(): string {
  return `${JSON.stringify([EXAMPLE_MEMBER], null, 2)}\n`;
}

export interface FieldLimit {
  field: string;
  type: string;
  required: boolean;
  nullable: boolean;
  limits: string;
  meaning: string;
}

interface JsonSchemaNode {
  type?: string | string[];
  anyOf?: JsonSchemaNode[];
  minLength?: number;
  maxLength?: number;
  format?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
}

function describeNode(field: string, node: JsonSchemaNode, required: boolean, meaning: string): FieldLimit {
  const variants = node.anyOf ?? [node];
  const types = variants.flatMap((variant) =>
    Array.isArray(variant.type) ? variant.type : variant.type ? [variant.type] : ['any'],
  );
  const main = variants.find((variant) => variant.type !== 'null') ?? node;
  const limits: string[] = [];
  if (main.minLength !== undefined && main.maxLength !== undefined)
    limits.push(`length ${main.minLength} to ${main.maxLength}`);
  else if (main.maxLength !== undefined) limits.push(`max length ${main.maxLength}`);
  else if (main.minLength !== undefined) limits.push(`min length ${main.minLength}`);
  if (main.format)
    limits.push(main.format === 'date-time' ? 'ISO 8601 date-time, e.g. 2024-01-31T09:00:00Z' : main.format);
  const type = [...new Set(types.filter((t) => t !== 'null'))].join(' | ') || 'any';
  return { field, type, required, nullable: types.includes('null'), limits: limits.join('; ') || '—', meaning };
}

/** Fields whose zod schema is custom (own-keys records) and so has no JSON Schema type of its own. */
const RECORD_TYPES: Partial<Record<string, string>> = {
  metadata: 'object of string → string or null',
  customProperties: 'object of string → any JSON',
};

/** Every field with its type and limits, read from the zod schema (via its JSON Schema form). */
export function fieldLimits(): FieldLimit[] {
  const schema = z.toJSONSchema(memberUpsertItemSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const required = new Set(schema.required ?? []);
  const rows: FieldLimit[] = [];
  for (const field of MEMBER_FIELDS) {
    const node = schema.properties![field]!;
    const row = describeNode(field, node, required.has(field), MEANING[field]);
    if (row.type === 'any' && RECORD_TYPES[field]) row.type = RECORD_TYPES[field];
    rows.push(row);
    if (field === 'address') {
      const address = (node.anyOf?.find((n) => n.properties) ?? node).properties!;
      for (const key of ADDRESS_FIELDS)
        rows.push(describeNode(`address.${key}`, address[key]!, false, ADDRESS_MEANING[key]));
    }
  }
  return rows;
}

/** The limits as a Markdown table (docs/reference/template.md carries this output, checked by a test). */
export function fieldLimitsMarkdown(): string {
  const lines = ['| Field | Type | Required | Nullable | Limits | Meaning |', '|---|---|---|---|---|---|'];
  for (const row of fieldLimits()) {
    lines.push(
      `| ${row.field} | ${row.type} | ${row.required ? 'yes' : 'no'} | ${row.nullable ? 'yes' : 'no'} | ${row.limits} | ${row.meaning} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
