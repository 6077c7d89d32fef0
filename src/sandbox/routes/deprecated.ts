/**
 * The endpoints the seed names only as deprecated (check-in, payments, games/current) and GET /v1/games, whose
 * shapes are not shown. They exist, so they are not 404: they answer 501 problem+json saying the shape is unknown
 * and naming the replacement the seed gives, with `Deprecation: true` (no date is known, so the draft's boolean
 * form) and, where the seed names the successor, a `Link: <...>; rel="successor-version"`.
 */
import type { RouteHandler } from '../context.js';
import { drainBody, sendProblem } from '../http-util.js';

export interface DeprecatedEndpoint {
  method: string;
  pattern: RegExp;
  template: string;
  /** The seed's words about the replacement. */
  replacement: string;
  /** Only where the seed names the successor's path. */
  successor?: string;
}

export const DEPRECATED_ENDPOINTS: DeprecatedEndpoint[] = [
  {
    method: 'POST',
    pattern: /^\/v1\/checkin\/([^/]+)$/,
    template: '/v1/checkin/{paymentLocation}',
    replacement: 'a V2 equivalent exists (its path is not shown)',
  },
  {
    method: 'POST',
    pattern: /^\/v1\/checkin\/([^/]+)\/register-member$/,
    template: '/v1/checkin/{paymentLocation}/register-member',
    replacement: 'a V2 equivalent exists (its path is not shown)',
  },
  {
    method: 'POST',
    pattern: /^\/v1\/payments$/,
    template: '/v1/payments',
    replacement: 'a V2 equivalent exists (its path is not shown)',
  },
  {
    method: 'POST',
    pattern: /^\/v1\/payments\/init$/,
    template: '/v1/payments/init',
    replacement: 'a V2 equivalent exists (its path is not shown)',
  },
  {
    method: 'GET',
    pattern: /^\/v1\/games\/current$/,
    template: '/v1/games/current',
    replacement: 'use GET /v1/games',
    successor: '/v1/games',
  },
];

export function deprecatedHandler(endpoint: DeprecatedEndpoint): RouteHandler {
  return async (req, res) => {
    await drainBody(req);
    const headers: Record<string, string> = { deprecation: 'true' };
    if (endpoint.successor) headers.link = `<${endpoint.successor}>; rel="successor-version"`;
    sendProblem(
      res,
      501,
      `${endpoint.method} ${endpoint.template} is deprecated: ${endpoint.replacement}. Its request and response shapes are not known, so the sandbox does not implement it.`,
      req.url?.split('?')[0] ?? '',
      { deprecated: true, replacement: endpoint.replacement },
      headers,
    );
  };
}

/** GET /v1/games: named by the seed as the successor of games/current, shape not shown. */
export const gamesHandler: RouteHandler = (req, res) => {
  sendProblem(
    res,
    501,
    'GET /v1/games exists, but its response shape is not known, so the sandbox does not implement it.',
    req.url?.split('?')[0] ?? '',
  );
};
