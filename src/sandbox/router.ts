/**
 * Dispatch: the API routes, the deprecated ones, the admin API; a known path with the wrong method is 405 with
 * Allow, anything else 404, both problem+json (routing answers before any endpoint). An unexpected exception
 * becomes a 500 in the area's shape (the member area's error object under /member/, else problem+json),
 * never a stack trace on the wire.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestRecord, RouteHandler, SandboxContext } from './context.js';
import { ClientGoneError, sendError, sendProblem } from './http-util.js';
import { adminRefusal } from './admin-guard.js';
import { ADMIN_ROUTES } from './routes/admin.js';
import { DEPRECATED_ENDPOINTS, deprecatedHandler, gamesHandler } from './routes/deprecated.js';
import { importMembers } from './routes/member-import.js';
import { subscribeDevice } from './routes/push-subscribe.js';

interface Route {
  method: string;
  pattern: RegExp;
  template: string;
  handler: RouteHandler;
  /** API routes draw faults and count as API traffic. */
  api?: boolean;
}

const ROUTES: Route[] = [
  {
    method: 'POST',
    pattern: /^\/member\/v1\/members\/import$/,
    template: '/member/v1/members/import',
    handler: importMembers,
    api: true,
  },
  {
    method: 'POST',
    pattern: /^\/push\/v1\/customers\/([^/]+)\/subscription$/,
    template: '/push/v1/customers/{customerId}/subscription',
    handler: subscribeDevice,
    api: true,
  },
  ...DEPRECATED_ENDPOINTS.map((endpoint) => ({ ...endpoint, handler: deprecatedHandler(endpoint) })),
  { method: 'GET', pattern: /^\/v1\/games$/, template: '/v1/games', handler: gamesHandler },
  ...ADMIN_ROUTES,
];

const isMemberArea = (path: string) => path.startsWith('/member/');

function sendFailure(
  res: ServerResponse,
  path: string,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return void res.destroy();
  if (isMemberArea(path)) sendError(res, status, message, null, headers);
  else sendProblem(res, status, message, path, {}, headers);
}

function decodeParams(match: RegExpExecArray): string[] | undefined {
  try {
    return match.slice(1).map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
}

export function createRequestHandler(ctx: SandboxContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const candidates = ROUTES.filter((route) => route.pattern.test(path));
    const route = candidates.find((candidate) => candidate.method === method);
    const record: RequestRecord = {
      seq: ctx.stats.started(),
      receivedAt: Date.now(),
      endpoint: route
        ? `${route.method} ${route.template}`
        : candidates.length > 0
          ? `${method} ${candidates[0]!.template}`
          : 'unmatched',
      items: 0,
    };
    if (route?.api) record.draw = ctx.faults.draw();
    res.once('close', () => {
      const { seq, receivedAt, endpoint, items, fault } = record;
      ctx.stats.finished({
        seq,
        receivedAt,
        answeredAt: Date.now(),
        endpoint,
        items,
        fault,
        status: res.writableFinished ? res.statusCode : 0,
      });
    });
    try {
      const refusal = path.startsWith('/_sandbox') ? adminRefusal(req) : undefined;
      if (refusal) {
        req.resume();
        return sendProblem(res, 403, refusal, path);
      }
      if (!route) {
        req.resume();
        if (candidates.length > 0) {
          const allow = [...new Set(candidates.map((candidate) => candidate.method))].join(', ');
          return sendProblem(
            res,
            405,
            `Method ${method} not allowed on ${path}; allowed: ${allow}.`,
            path,
            {},
            { allow },
          );
        }
        return sendProblem(
          res,
          404,
          `No endpoint ${method} ${path}. See the API description for the paths that exist.`,
          path,
        );
      }
      const params = decodeParams(route.pattern.exec(path)!);
      if (!params) return sendFailure(res, path, 400, 'The path holds an invalid percent-encoding.');
      await route.handler(req, res, ctx, record, params);
    } catch (error) {
      if (error instanceof ClientGoneError || res.destroyed) return void res.destroy();
      ctx.log(
        `unexpected error on ${method} ${path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      record.fault ??= 'unexpected error';
      sendFailure(res, path, 500, 'Internal error in the sandbox; the request may not have been applied.');
    }
  };
}
