/**
 * validate --stats on a terminal: one line per field with a fill bar, its distinct count and, for dates and
 * numbers, the range; under a field whose values repeat, its most common values with a bar each.
 *
 *   isActive           ██████████ 100%  1 distinct
 *                        true  ██████████ 100%
 */
import type { FieldProfile, ItemsProfile } from '../../core/validate/field-profile.js';
import type { Output } from '../output.js';

const BAR_WIDTH = 10;
/** Values listed under a field: its top values, when they repeat (a column of unique ids lists none). */
const VALUES_SHOWN = 3;

export function renderProfile(profile: ItemsProfile, output: Output): void {
  const { color } = output;
  const bar = (share: number) => {
    const full = Math.round(share * BAR_WIDTH);
    return `${'█'.repeat(full)}${color.dim('░'.repeat(BAR_WIDTH - full))}`;
  };
  output.out('');
  output.out(color.bold(`Profile of the ${count(profile.items, 'valid item')} (what import would send):`));
  if (profile.items === 0) return;
  const width = Math.min(32, Math.max(5, ...profile.fields.map((f) => f.path.length)));
  for (const field of profile.fields) {
    const filled = field.filled / profile.items;
    const nulls = field.nulls > 0 ? `, ${color.yellow(`${field.nulls} null`)} (clears the server's value)` : '';
    const range = field.range ? `  ${field.range.min} … ${field.range.max}` : '';
    // one value in every item is how a constant (or a column read wrongly) shows: worth a look before sending
    const distinct = field.distinct === 1 && field.filled > 1 ? color.yellow('one value in all') : distinctText(field);
    output.out(
      `  ${clip(field.path, width).padEnd(width)} ${bar(filled)} ${percent(filled).padStart(4)}  ${distinct}${range}${nulls}`,
    );
    if (field.range || (field.top[0]?.count ?? 0) < 2) continue;
    const shown = field.top.slice(0, VALUES_SHOWN);
    const valueWidth = Math.min(24, Math.max(...shown.map((v) => v.value.length)));
    for (const { value, count } of shown) {
      const share = count / field.filled;
      output.out(
        `  ${''.padEnd(width)}   ${clip(value, valueWidth).padEnd(valueWidth)}  ${bar(share)} ${percent(share)}`,
      );
    }
  }
}

function distinctText(field: FieldProfile): string {
  if (field.filled === 0) return 'no values';
  const distinct = `${field.distinct.toLocaleString('en-US')}${field.distinctCapped ? '+' : ''} distinct`;
  return field.top[0]?.count === 1 ? `${distinct}, each once` : distinct;
}

function percent(share: number): string {
  const value = share * 100;
  // 99.6% is not 100%: a field that is nearly always filled must not read as always filled
  return value > 99 && value < 100 ? '>99%' : value > 0 && value < 1 ? '<1%' : `${Math.round(value)}%`;
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
