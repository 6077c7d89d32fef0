import { describe, expect, it } from 'vitest';
import { redactHeaders, redactor } from '../../src/http/redact.js';

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
