import { describe, expect, it } from 'vitest';
import { FailFast, unfixableKind } from '../../src/core/import/fail-fast.js';
import type { FailureCause, ImportResponse } from '../../src/core/import/types.js';

const net = (code: string, reachedServer = false): FailureCause => ({
  kind: 'network',
  code,
  retries: 2,
  gaveUp: true,
  reachedServer,
});
const http = (status: number): FailureCause => ({
  kind: 'http',
  status,
  retries: 0,
  gaveUp: false,
  reachedServer: true,
});
const failed = (cause: FailureCause): ImportResponse =>
  ({
    kind: 'failed',
    status: cause.status,
    message: `failed ${cause.status ?? cause.code}`,
    retries: cause.retries,
    cause,
  }) as ImportResponse;
const ok: ImportResponse = { kind: 'ok', status: 200, result: { importedCount: 1, updatedCount: 0, skipped: [] } };

describe('unfixableKind', () => {
  it.each([
    [http(404), 'http-404'],
    [http(405), 'http-405'],
    [http(302), 'redirect-302'],
    [net('ENOTFOUND'), 'dns'],
    [net('ECONNREFUSED'), 'ECONNREFUSED'],
    [net('DEPTH_ZERO_SELF_SIGNED_CERT', true), 'tls'],
    [net('EPROTO', true), 'tls'],
    [http(500), undefined],
    [http(503), undefined],
    [http(429), undefined],
    [net('ECONNRESET', true), undefined],
    [net('timeout', true), undefined],
  ])('%o → %s', (cause, kind) => expect(unfixableKind(cause)).toBe(kind));
});

describe('FailFast', () => {
  it('stops on the third alike unfixable failure, with the cause and what to check', () => {
    const watch = new FailFast();
    expect(watch.observe(failed(net('ENOTFOUND')))).toBeUndefined();
    expect(watch.observe(failed(net('ENOTFOUND')))).toBeUndefined();
    const diagnosis = watch.observe(failed(net('ENOTFOUND')));
    expect(diagnosis?.message).toMatch(
      /^stopped after the first 3 batches all failed the same way: failed ENOTFOUND; the host name does not resolve/,
    );
    expect(diagnosis?.short).toContain('ENOTFOUND');
  });

  it('one useful answer disarms it for the rest of the run', () => {
    const watch = new FailFast();
    watch.observe(failed(http(404)));
    watch.observe(ok);
    for (let i = 0; i < 5; i++) expect(watch.observe(failed(http(404)))).toBeUndefined();
  });

  it('failures of different kinds, or one retrying may fix, disarm it', () => {
    const mixed = new FailFast();
    mixed.observe(failed(http(404)));
    mixed.observe(failed(http(302)));
    expect(mixed.observe(failed(http(404)))).toBeUndefined();
    const transient = new FailFast();
    transient.observe(failed(http(503)));
    for (let i = 0; i < 3; i++) expect(transient.observe(failed(http(404)))).toBeUndefined();
  });
});
