/**
 * Sandbox credentials. The member area takes a JWT, the push area an opaque token (seed: Authentication).
 * Signatures are never checked: the sandbox has no identity provider. By default any well-formed, unexpired JWT
 * is a valid member token and any token68 string a valid push token; with strictTokens only this sandbox's own.
 */
import { createHmac, randomBytes } from 'node:crypto';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** RFC 6750 token68: what a bearer credential may contain. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export const MEMBER_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

/** An HS256 JWT signed with a throw-away key, valid for a day: looks and decodes like a real one. */
export function generateMemberToken(now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const header = b64({ alg: 'HS256', typ: 'JWT' });
  const payload = b64({
    iss: 'memberctl-sandbox',
    sub: 'sandbox-user',
    aud: 'member-api',
    iat,
    exp: iat + MEMBER_TOKEN_LIFETIME_SECONDS,
    jti: randomBytes(8).toString('hex'),
  });
  const signature = createHmac('sha256', randomBytes(32)).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

export function generatePushToken(): string {
  return `sbx_push_${randomBytes(24).toString('base64url')}`;
}

export type AuthResult = { ok: true } | { ok: false; reason: string };

/** Splits "Bearer <token>"; the scheme is case-insensitive (RFC 9110), exactly one space-separated credential. */
export function bearerToken(header: string | undefined): { token: string } | { reason: string } {
  if (header === undefined || header.trim() === '')
    return { reason: 'missing Authorization header (expected "Bearer <token>")' };
  const match = /^(\S+)(?: +(.*))?$/.exec(header.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') return { reason: 'Authorization scheme must be Bearer' };
  const token = (match[2] ?? '').trim();
  if (token === '') return { reason: 'empty bearer token' };
  if (!TOKEN68.test(token)) return { reason: 'malformed bearer token' };
  return { token };
}

function jsonPart(part: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(part)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT's shape (three base64url parts, JSON header with alg, JSON object payload) and its time claims. */
export function checkJwt(token: string, nowSeconds: number): AuthResult {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed JWT: expected three dot-separated parts' };
  const header = jsonPart(parts[0]!);
  if (!header || typeof header.alg !== 'string')
    return { ok: false, reason: 'malformed JWT: header is not a JSON object with alg' };
  const payload = jsonPart(parts[1]!);
  if (!payload) return { ok: false, reason: 'malformed JWT: payload is not a JSON object' };
  if (parts[2] !== '' && !BASE64URL.test(parts[2]!))
    return { ok: false, reason: 'malformed JWT: signature is not base64url' };
  if (payload.exp !== undefined && (typeof payload.exp !== 'number' || payload.exp <= nowSeconds)) {
    return { ok: false, reason: 'token expired' };
  }
  if (typeof payload.nbf === 'number' && payload.nbf > nowSeconds)
    return { ok: false, reason: 'token not valid yet (nbf)' };
  return { ok: true };
}

export interface TokenPolicy {
  memberToken: string;
  pushToken: string;
  strict: boolean;
}

export function authorizeMember(header: string | undefined, policy: TokenPolicy, now = Date.now()): AuthResult {
  const bearer = bearerToken(header);
  if ('reason' in bearer) return { ok: false, reason: bearer.reason };
  const jwt = checkJwt(bearer.token, Math.floor(now / 1000));
  if (!jwt.ok) return jwt;
  if (policy.strict && bearer.token !== policy.memberToken)
    return { ok: false, reason: 'token not issued by this sandbox' };
  return { ok: true };
}

export function authorizePush(header: string | undefined, policy: TokenPolicy): AuthResult {
  const bearer = bearerToken(header);
  if ('reason' in bearer) return { ok: false, reason: bearer.reason };
  if (policy.strict && bearer.token !== policy.pushToken)
    return { ok: false, reason: 'token not issued by this sandbox' };
  return { ok: true };
}
