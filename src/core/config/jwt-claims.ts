/**
 * Reads a JWT's claims without verifying its signature: enough to tell a user that their token has expired
 * before the server does. Never returns or logs the token itself.
 */

export interface JwtClaims {
  sub?: string;
  /** Seconds since the epoch, as in the token. */
  exp?: number;
  iat?: number;
  nbf?: number;
}

export function decodeJwtClaims(token: string): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
    const claims = payload as Record<string, unknown>;
    const seconds = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
    return {
      sub: typeof claims.sub === 'string' ? claims.sub : undefined,
      exp: seconds(claims.exp),
      iat: seconds(claims.iat),
      nbf: seconds(claims.nbf),
    };
  } catch {
    return undefined;
  }
}

export type ExpiryState =
  | { state: 'no-expiry' }
  | { state: 'expired'; at: Date; agoMs: number }
  | { state: 'expiring'; at: Date; inMs: number }
  | { state: 'valid'; at: Date; inMs: number };

const DAY_MS = 24 * 60 * 60 * 1000;

export function expiryState(claims: JwtClaims, now: Date, warnWithinMs = DAY_MS): ExpiryState {
  if (claims.exp === undefined) return { state: 'no-expiry' };
  const at = new Date(claims.exp * 1000);
  const inMs = at.getTime() - now.getTime();
  if (inMs <= 0) return { state: 'expired', at, agoMs: -inMs };
  return inMs <= warnWithinMs ? { state: 'expiring', at, inMs } : { state: 'valid', at, inMs };
}

/** "3 days", "5 hours", "12 minutes": precise enough for a warning. */
export function humanDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
}
