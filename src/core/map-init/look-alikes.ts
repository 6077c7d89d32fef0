/**
 * Columns that look alike each keep their own field where one exists: the mobile feeds phone, the landline
 * homeTelephone, a work or second phone is kept in metadata. E-mail columns that are true alternatives (work, home,
 * other) become one `firstOf`, said in a note; a secondary address beside a primary one is kept. Any other field two
 * columns claim goes to the first (the better certainty), and the other is kept in metadata, noted.
 */
import type { Proposal } from './decide.js';

export interface Settled {
  /** Fields entries (firstOf for true alternatives). */
  fields: Record<string, unknown>;
  notes: string[];
}

const RANK = { exact: 0, alias: 1, fuzzy: 2, values: 3, kept: 4 } as const;

export function settleLookAlikes(proposals: Proposal[], keyOf: (column: string) => string): Settled {
  const settled: Settled = { fields: {}, notes: [] };
  const toMetadata = (p: Proposal, why: string) => {
    p.field = `metadata.${keyOf(p.column)}`;
    p.rule = p.field;
    p.certainty = 'kept';
    p.why.push(why);
  };
  settlePhones(proposals, toMetadata);
  settleEmails(proposals, toMetadata, settled);
  const byField = new Map<string, Proposal[]>();
  for (const p of proposals)
    if (p.field && p.rule !== undefined && !/^(metadata|customProperties)\./.test(p.field) && !p.role)
      byField.set(p.field, [...(byField.get(p.field) ?? []), p]);
  for (const [field, claims] of byField) {
    if (claims.length < 2) continue;
    // the surer name first; between equals, the column read as it is (an Active yes/no before Status words)
    const plain = (p: Proposal) => (typeof p.rule === 'string' ? 0 : 1);
    const [first, ...rest] = [...claims].sort((a, b) => RANK[a.certainty] - RANK[b.certainty] || plain(a) - plain(b));
    for (const other of rest)
      toMetadata(other, `"${first!.column}" feeds ${field}; this one looks like it too: kept in metadata`);
  }
  return settled;
}

function settlePhones(proposals: Proposal[], toMetadata: (p: Proposal, why: string) => void): void {
  const of = (role: string) => proposals.filter((p) => p.role === role);
  // among look-alikes of one kind, the API's own name first ("Phone" before "Default Address Phone")
  const [mobiles, homes, works, generics] = ['phone.mobile', 'phone.home', 'phone.work', 'phone.generic'].map((role) =>
    of(role).sort((a, b) => RANK[a.certainty] - RANK[b.certainty]),
  );
  const assign = (p: Proposal, field: string, why: string) => {
    p.field = field;
    p.rule = field;
    p.why.push(why);
  };
  let phone = mobiles![0];
  let home = homes![0];
  if (phone) assign(phone, 'phone', 'a mobile number: phone');
  if (home) assign(home, 'homeTelephone', 'a home or landline number: homeTelephone');
  for (const generic of generics!) {
    if (!phone) {
      phone = generic;
      assign(generic, 'phone', 'the only general phone column: phone');
    } else if (!home && mobiles!.length > 0) {
      home = generic;
      assign(
        generic,
        'homeTelephone',
        `beside the mobile column "${phone.column}", the general phone is taken for the landline: homeTelephone (check it)`,
      );
      generic.weak = true;
    } else
      toMetadata(
        generic,
        `another phone column beside "${phone.column}"${home ? ` and "${home.column}"` : ''}: kept in metadata`,
      );
  }
  for (const work of works!) {
    if (!phone) {
      phone = work;
      assign(work, 'phone', 'the only phone beside the home number: phone');
    } else toMetadata(work, `a work phone beside "${phone.column}": kept in metadata`);
  }
  for (const rest of [...mobiles!.slice(1), ...homes!.slice(1)])
    toMetadata(rest, 'another phone column of the same kind: kept in metadata');
  for (const p of proposals) if (p.role?.startsWith('phone.')) delete p.role;
}

function settleEmails(proposals: Proposal[], toMetadata: (p: Proposal, why: string) => void, settled: Settled): void {
  const emails = proposals.filter((p) => p.role?.startsWith('email.'));
  const primary = emails.find((p) => p.role === 'email.primary');
  const alternatives = emails.filter((p) => p.role === 'email.alternative');
  if (primary) {
    for (const other of emails)
      if (other !== primary) toMetadata(other, `another address beside "${primary.column}": kept in metadata`);
  } else if (alternatives.length >= 2) {
    const names = alternatives.map((p) => p.column);
    settled.fields.email = { firstOf: names };
    for (const p of alternatives) {
      p.field = 'email';
      p.rule = undefined;
    }
    settled.notes.push(
      `email: ${names.map((n) => `"${n}"`).join(', ')} are alternatives (work, home, other): fields["email"] takes the first non-empty, in that order`,
    );
    for (const other of emails)
      if (!alternatives.includes(other)) toMetadata(other, 'a secondary address: kept in metadata');
  } else {
    const [first, ...rest] = emails;
    for (const other of rest) toMetadata(other, `another address beside "${first!.column}": kept in metadata`);
  }
  for (const p of emails) delete p.role;
}
