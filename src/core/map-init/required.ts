/**
 * The three required fields, when no column's name gave them. Never a constant where a column could serve: a
 * unique e-mail column is proposed as memberId, a date column as createdAt, each as a decision that names the
 * column and shows its cells. A placeholder only when no column could serve, and that is a decision too.
 */
import { type Proposal, samplesOf } from './decide.js';

export interface Decision {
  /** The mapping's `decisions` key: the column's header, or `fields.<field>`. */
  key: string;
  field: string;
  kind: 'timeZone' | 'dateOrder' | 'values' | 'column' | 'constant' | 'asWritten';
  question: string;
  /** The column it is about, if any, and a few of its cells. */
  column?: string;
  samples: string[];
  /** The choices, when the file narrows them (a day/month order: the two formats). */
  options?: string[];
}

const NOT_JOINED =
  /modif|updat|last|birth|dob|geburt|naissance|nacimiento|nascimento|geboorte|änder|expir|end|until|bis/i;

export function settleRequired(proposals: Proposal[], fields: Record<string, unknown>): Decision[] {
  const decisions: Decision[] = [];
  const feeds = (field: string) => proposals.some((p) => p.field === field) || field in fields;
  if (!feeds('memberId')) decisions.push(memberIdDecision(proposals, fields));
  if (!feeds('createdAt')) decisions.push(...createdAtDecisions(proposals, fields));
  if (!feeds('isActive')) decisions.push(isActiveDecision(proposals, fields));
  return decisions;
}

function memberIdDecision(proposals: Proposal[], fields: Record<string, unknown>): Decision {
  const fit = (p: Proposal) =>
    p.profile.unique && p.profile.filled === p.profile.sampled && p.profile.filled > 0 && p.profile.longest <= 36;
  const email = proposals.find((p) => p.field === 'email' && p.rule !== undefined && fit(p));
  if (email) {
    email.rule = ['memberId', email.rule];
    email.why.push('no column is named as a member id: proposed as memberId too (a decision)');
    return {
      key: email.column,
      field: 'memberId',
      kind: 'column',
      column: email.column,
      samples: [...email.cells.slice(0, 3)],
      question: `no column is named as a member id; "${email.column}" is filled and unique in all ${email.profile.sampled} sampled records (${samplesOf(email.cells)}): it is proposed as memberId too. Keep it, or map the id column`,
    };
  }
  const firstOf = (fields.email as { firstOf?: string[] } | undefined)?.firstOf;
  if (firstOf) {
    fields.memberId = { firstOf };
    return {
      key: 'fields.memberId',
      field: 'memberId',
      kind: 'column',
      samples: [],
      question: `no column is named as a member id: the first e-mail address given (${firstOf.map((c) => `"${c}"`).join(', ')}) is proposed as memberId. Keep it (every record needs one, each different), or map the id column`,
    };
  }
  fields.memberId = { column: 'REPLACE: the header of a column holding a unique id' };
  return {
    key: 'fields.memberId',
    field: 'memberId',
    kind: 'constant',
    samples: [],
    question: 'no column holds a unique id in every record: name the column that identifies a member',
  };
}

function createdAtDecisions(proposals: Proposal[], fields: Record<string, unknown>): Decision[] {
  const dates = proposals.filter(
    (p) => p.profile.kind === 'date' && !NOT_JOINED.test(p.column) && /^metadata\./.test(p.field ?? ''),
  );
  const [best, ...others] = dates;
  if (best) {
    const rule: Record<string, unknown> = { field: 'createdAt' };
    if (best.profile.date?.format) rule.format = best.profile.date.format;
    if (best.profile.date?.local) rule.timeZone = 'UTC';
    best.field = 'createdAt';
    best.rule = Object.keys(rule).length === 1 ? 'createdAt' : rule;
    best.certainty = 'values';
    best.why = [
      ...best.why.map((w) => w.replace(/: kept$/, '')),
      'no column is named as the join date: proposed as createdAt (a decision)',
    ];
    const alsoDates = others.length ? `; other date columns: ${others.map((p) => `"${p.column}"`).join(', ')}` : '';
    const about = {
      key: best.column,
      field: 'createdAt',
      column: best.column,
      samples: [...new Set(best.cells)].slice(0, 5),
    };
    const date = best.profile.date;
    return [
      {
        ...about,
        kind: 'column',
        question: `no column is named as the join date; "${best.column}" holds dates (${samplesOf(best.cells)}) and is proposed as createdAt${alsoDates}. Keep it, map another, or give a constant`,
      },
      ...(date?.alternative
        ? [
            {
              ...about,
              kind: 'dateOrder' as const,
              options: [date.format!, date.alternative],
              question: `"${best.column}" reads as "${date.format}" and as "${date.alternative}" (no day above 12 in the sample): set "format" to the one the export uses`,
            },
          ]
        : []),
      ...(date?.local
        ? [
            {
              ...about,
              kind: 'timeZone' as const,
              question: `"${best.column}" holds date-times without an offset: set "timeZone" to the zone they were written in (UTC is only a proposal)`,
            },
          ]
        : []),
    ];
  }
  fields.createdAt = { value: 'REPLACE: when these members joined, e.g. 2024-01-01T00:00:00Z' };
  return [
    {
      key: 'fields.createdAt',
      field: 'createdAt',
      kind: 'constant',
      samples: [],
      question: 'no column holds a join date: give the date every member is sent with (fields["createdAt"].value)',
    },
  ];
}

function isActiveDecision(proposals: Proposal[], fields: Record<string, unknown>): Decision {
  fields.isActive = { value: true };
  const statuses = proposals.filter(
    (p) => /status|stage|activ/i.test(p.column) && p.profile.kind !== 'empty' && /^metadata\./.test(p.field ?? ''),
  );
  const seen = statuses.length
    ? ` (${statuses.map((p) => `"${p.column}": ${samplesOf(p.cells, 3)}`).join('; ')}: no word about being active)`
    : '';
  // "archived", "deleted", "blocked": a yes/no column may say it, the other way round; only the user knows
  const flags = proposals.filter((p) => p.profile.kind === 'boolean' && /^customProperties\./.test(p.field ?? ''));
  const maybe = flags.length
    ? `; yes/no columns that might say it (perhaps the other way round): ${flags.map((p) => `"${p.column}" (${samplesOf(p.cells, 2)})`).join(', ')}`
    : '';
  return {
    key: 'fields.isActive',
    field: 'isActive',
    kind: 'constant',
    samples: [],
    question: `no column says whether a member is active${seen}${maybe}: every member is proposed as active (true). Keep it, or map a status column with "values"`,
  };
}
