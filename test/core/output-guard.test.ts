/** The output guard: a resource failure on a write made inside a hook stops the run (named), anything else is thrown. */
import { describe, expect, it } from 'vitest';
import { outputGuard } from '../../src/core/import/output-guard.js';
import type { ImportHooks } from '../../src/core/import/types.js';
import { stateError } from '../../src/state/state-errors.js';

const candidate = {
  record: 1,
  line: 2,
  memberId: 'm1',
  raw: {},
  valid: true as const,
  item: { memberId: 'm1', isActive: true, createdAt: '2024-01-01T00:00:00Z' },
};

describe('outputGuard', () => {
  it('beforeSend (which writes the learned source hashes in batches): a full state stops the run and the member is sent', () => {
    const guard = outputGuard();
    const full = stateError(
      'night.state',
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
    );
    const hooks: ImportHooks = {
      beforeSend: () => {
        throw full;
      },
    };
    // sending an unchanged member again is only an upsert; the stop then counts what is not sent as failed
    expect(guard.hooks(hooks, { state: 'night.state' }).beforeSend!(candidate, '{}')).toBe('send');
    expect(guard.failure).toMatchObject({ kind: 'state', file: 'night.state', errno: 'SQLITE_FULL' });
    expect(guard.signal.aborted).toBe(true);
  });

  it('any other error in beforeSend is thrown on', () => {
    const guard = outputGuard();
    const hooks: ImportHooks = {
      beforeSend: () => {
        throw new Error('a bug');
      },
    };
    expect(() => guard.hooks(hooks, { state: 'night.state' }).beforeSend!(candidate, '{}')).toThrow('a bug');
    expect(guard.failure).toBeUndefined();
  });
});
