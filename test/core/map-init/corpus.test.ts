/**
 * map init on the corpus of realistic exports (fixtures/exports, provenance in its README): each result is scored
 * against the finished mapping written by hand. No wrong value stored, no record the finished mapping sends refused,
 * at least 90% of the columns holding data routed right. The figures go to docs/performance.md#map-init.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initMapping } from '../../../src/core/map-init/map-init.js';
import { type Score, scoreExport } from './corpus-score.js';

const dir = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'exports');
const exports = readdirSync(dir)
  .filter((name) => /\.(csv|xlsx)$/.test(name))
  .sort();

describe('map init on the corpus of real export shapes', () => {
  const scores: Score[] = [];
  for (const name of exports) {
    it(`${name}: stores no wrong value and refuses no record the finished mapping sends`, async () => {
      const path = join(dir, name);
      const init = await initMapping({ path });
      const score = await scoreExport(path, init, path.replace(/\.(csv|xlsx)$/, '.mapping.json'));
      scores.push(score);
      expect({ wrong: score.wrongExamples, refused: score.refused }).toEqual({ wrong: [], refused: 0 });
    });
  }

  it('routes at least 90% of the columns holding data where the finished mappings do', () => {
    const columns = scores.reduce((n, s) => n + s.columns, 0);
    const routed = scores.reduce((n, s) => n + s.routed, 0);
    const lines = scores.map(
      (s) =>
        `| ${s.file} | ${s.routed} of ${s.columns} | ${s.wrong} | ${s.lost} | ${s.refused} | ${s.decisions} |${s.misrouted.length ? ` ${s.misrouted.join('; ')}` : ''}`,
    );
    const total = `| all ${scores.length} | ${routed} of ${columns} (${Math.round((100 * routed) / columns)}%) | ${scores.reduce((n, s) => n + s.wrong, 0)} | ${scores.reduce((n, s) => n + s.lost, 0)} | ${scores.reduce((n, s) => n + s.refused, 0)} | ${scores.reduce((n, s) => n + s.decisions, 0)} |`;
    console.log(
      ['| export | routed right | wrong values | lost values | refused | decisions |', ...lines, total].join('\n'),
    );
    expect(routed / columns).toBeGreaterThanOrEqual(0.9);
  });
});
