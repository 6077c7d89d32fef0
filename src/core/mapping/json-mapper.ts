/** JSON and NDJSON records are taken as they are: the schema alone decides, and nothing is coerced. */
import type { Candidate } from '../candidate.js';
import type { SourceRecord } from '../../io/source.js';
import { describeValue } from './issues.js';
import { checkItem } from './validate-item.js';

export function jsonToCandidate(source: SourceRecord): Candidate {
  const { record, line, raw } = source;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const issues = [{ path: '', message: `expected a JSON object (one member), got ${describeValue(raw)}`, rule: 'not an object' }];
    return { record, line, raw, valid: false, issues };
  }
  const id = (raw as { memberId?: unknown }).memberId;
  const memberId = typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
  const check = checkItem(raw, 'json');
  return check.ok
    ? { record, line, memberId, raw, valid: true, item: check.item }
    : { record, line, memberId, raw, valid: false, issues: check.issues };
}
