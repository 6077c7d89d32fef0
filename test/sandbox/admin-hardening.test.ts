/**
 * The admin API has no authentication, so it must not be reachable from a web page: a cross-site request (an
 * Origin that is not the sandbox itself, Sec-Fetch-Site cross-site), a state-changing call that is not
 * application/json (an HTML form can send that without a preflight), or a Host that is not loopback or an IP
 * literal (DNS rebinding: evil.example resolving to 127.0.0.1) is refused 403 and changes nothing.
 */
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importBatch, member, sandboxFixture } from './helpers.js';

const fx = sandboxFixture();
beforeEach(() => fx.start());
afterEach(() => fx.stop());

async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await request(`${fx.sandbox.url}${path}`, { method: method as 'POST', headers, body });
  await response.body.dump();
  return response.statusCode;
}

describe('admin API: no cross-site requests', () => {
  const JSON_TYPE = { 'content-type': 'application/json' };
  const origin = () => new URL(fx.sandbox.url).origin;

  it.each([
    ['an Origin from another site', { ...JSON_TYPE, origin: 'https://evil.example' }],
    ['Sec-Fetch-Site: cross-site', { ...JSON_TYPE, 'sec-fetch-site': 'cross-site' }],
    ['a form body (text/plain, no preflight)', { 'content-type': 'text/plain' }],
    ['no content type', {}],
    ['a DNS-rebinding Host', { ...JSON_TYPE, host: 'evil.example' }],
  ])('%s: reset is refused 403 and nothing is erased', async (_name, headers) => {
    await importBatch(fx.sandbox, [member('keep')]);
    expect(await raw('POST', '/_sandbox/reset', headers as Record<string, string>)).toBe(403);
    expect(await raw('DELETE', '/_sandbox/members/keep', headers as Record<string, string>)).toBe(403);
    expect(fx.sandbox.memberCount()).toBe(1);
  });

  it('a rebinding Host cannot read either; the sandbox itself (same origin, loopback names) can', async () => {
    expect(await raw('GET', '/_sandbox/members', { host: 'evil.example:80' })).toBe(403);
    const port = new URL(fx.sandbox.url).port;
    expect(await raw('GET', '/_sandbox/members', { host: `localhost:${port}` })).toBe(200);
    expect(await raw('GET', '/_sandbox/stats', { origin: origin() })).toBe(200);
    expect(await raw('PATCH', '/_sandbox/faults', { ...JSON_TYPE, origin: origin() }, '{"failRate":0}')).toBe(200);
    expect(await raw('POST', '/_sandbox/reset', JSON_TYPE)).toBe(204);
  });
});
