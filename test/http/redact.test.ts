import { describe, expect, it } from 'vitest';
import { redactCutText, redactHeaders, redactor } from '../../src/http/redact.js';

const TOKEN = 'eyJhbGciOi.payload+part/sig==';

describe('redactor: every form a server may echo the token in', () => {
  const mask = redactor([TOKEN, 'push-opaque-token-42']);
  it.each([
    ['raw', TOKEN],
    ['percent-encoded', encodeURIComponent(TOKEN)],
    [
      'percent-encoded, lower-case hex',
      encodeURIComponent(TOKEN).toLowerCase().replace('eyjhbgciOi'.toLowerCase(), 'eyJhbGciOi'),
    ],
    ['partly encoded', TOKEN.replace('+', '%2B')],
    ['JSON \\u escapes', [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['JSON escaped slash', TOKEN.replace('/', '\\/')],
  ])('%s', (_name, form) => {
    expect(mask(`see ${form} here`)).toBe('see [redacted] here');
  });
  it('masks both tokens, and every header value', () => {
    const headers = redactHeaders(
      { location: `https://x/?a=${TOKEN}&b=push-opaque-token-42`, 'set-cookie': [`t=${TOKEN}`] },
      mask,
    );
    expect(headers).toEqual({ location: 'https://x/?a=[redacted]&b=[redacted]', 'set-cookie': ['t=[redacted]'] });
  });
  it('leaves other text alone, and a short token inside words', () => {
    expect(mask('HTTP 502 Bad Gateway')).toBe('HTTP 502 Bad Gateway');
    expect(redactor(['t'])('Gateway; Bearer t.')).toBe('Gateway; Bearer [redacted].');
  });
});

describe('redactCutText: a text cut off inside a secret keeps none of it', () => {
  const OPAQUE = 'sbx_push_EvcvsnzzlDTTloZ1dJgXZ80zrPTc4wl1';
  const mask = redactor([OPAQUE]);
  it.each([
    ['raw', OPAQUE],
    ['percent-encoded', [...OPAQUE].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    ['JSON \\u escapes', [...OPAQUE].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
  ])('%s, cut after any of its characters', (_name, form) => {
    for (let kept = 1; kept < form.length; kept++) {
      const cut = redactCutText(`error: ${OPAQUE} ${'.'.repeat(300)} was sent as ${form.slice(0, kept)}`, mask);
      expect(cut).not.toContain(form.slice(0, Math.min(kept, 4)));
      expect(cut.startsWith(`error: [redacted] ${'.'.repeat(40)}`)).toBe(true);
    }
  });
  it('keeps a text whole when there is no secret', () => {
    expect(redactCutText('error page', redactor([]))).toBe('error page');
  });
});

describe('a secret quoted clipped with "…" (a message clips a long value so)', () => {
  const OPAQUE = 'sbx_push_EvcvsnzzlDTTloZ1dJgXZ80zrPTc4wl1';
  const mask = redactor([OPAQUE]);
  it('masks its beginning, of 4 characters up to all but one', () => {
    for (let kept = 4; kept < OPAQUE.length; kept++)
      expect(mask(`unknown column "${OPAQUE.slice(0, kept)}…" (column 1)`)).toBe(
        'unknown column "[redacted]" (column 1)',
      );
  });
  it('leaves a clipped text that is no beginning of it, or only the tail of a word, alone', () => {
    expect(mask('unknown column "sbx_pull…"')).toBe('unknown column "sbx_pull…"');
    expect(mask('unknown column "xsbx_push…"')).toBe('unknown column "xsbx_push…"');
    expect(mask('unknown column "sbx…"')).toBe('unknown column "sbx…"');
  });
});
