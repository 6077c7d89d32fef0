/**
 * A per-row time-zone column (Mailchimp's TIMEZONE: "America/Los_Angeles"): the mapping's "timeZone" is one zone
 * for a whole column, so a zone per row cannot be used; the time-zone question names the column and its cells, and
 * says so, rather than letting a column of zones go unseen while the user is asked for one.
 */
import { openZone, TimeZoneError } from '../mapping/rules/time-zone.js';
import type { Proposal } from './decide.js';
import type { Decision } from './required.js';
import { samplesOf } from './samples.js';

/** Area/Location, as IANA names are written (UTC alone says nothing per row). */
const ZONE_NAME = /^[A-Za-z]+\/[A-Za-z0-9_+\-/]+$/;

function isZone(cell: string): boolean {
  if (!ZONE_NAME.test(cell)) return false;
  try {
    openZone(cell);
    return true;
  } catch (error) {
    if (error instanceof TimeZoneError) return false;
    throw error;
  }
}

/** The first column whose sampled cells are (90% or more) IANA zone names. */
export function zoneColumn(proposals: readonly Proposal[]): Proposal | undefined {
  return proposals.find((p) => p.cells.length > 0 && p.cells.filter(isZone).length >= p.cells.length * 0.9);
}

/** Each time-zone question, told of the file's per-row zone column (none is changed when the file has none). */
export function mentionZoneColumn(decisions: Decision[], proposals: readonly Proposal[]): void {
  const zones = zoneColumn(proposals);
  if (!zones) return;
  for (const d of decisions) {
    if (d.kind !== 'timeZone' || d.column === zones.column) continue;
    d.question += `. The file has a time-zone column, "${zones.column}" (${samplesOf(zones.cells)}), one per row: a mapping's "timeZone" is one zone for the whole column (the mapping language has no zone per row), and that column may say where each member is rather than where these times were written (check the export's documentation)`;
  }
}
