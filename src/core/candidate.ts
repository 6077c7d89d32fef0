/**
 * What the local half of the pipeline (read → map → validate) hands on: one candidate per record read,
 * either a valid upsert item or the issues that make it invalid. Validate reports these; import sends the valid ones.
 */
import type { MemberUpsertItem } from '../schemas/index.js';

export interface RecordIssue {
  /** Field path in the upsert item ("email", "address.zipCode", "metadata.tier"), or the input column when unmapped. */
  path: string;
  message: string;
  /** The rule broken, free of the record's values ("required", "longer than 256 characters"), for counting reasons. */
  rule?: string;
}

export interface RecordRef {
  record: number;
  line: number;
  /** The memberId as read, even when the record is invalid (when one could be found). */
  memberId?: string;
  /** The input as read (CSV cells or the parsed JSON value), for rejects files. */
  raw: unknown;
}

export type Candidate =
  | (RecordRef & {
      valid: true;
      item: MemberUpsertItem;
      /** Fields left out by "onInvalid": "omit", one issue each (what was wrong with the cell), for the counts. */
      omitted?: RecordIssue[];
    })
  | (RecordRef & { valid: false; issues: RecordIssue[] });

/** Renders issues as one line: "email: must be at most 256 characters; isActive: required". */
export function issuesToReason(issues: RecordIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}
