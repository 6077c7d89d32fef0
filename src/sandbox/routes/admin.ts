/**
 * The admin API under /_sandbox/ (no auth: the sandbox listens on loopback). For tests and curious users:
 * look at the store, erase members, reset, read statistics and the request log, change faults at run time.
 * Errors here are problem+json like everything outside the member area.
 */
import type { IncomingMessage } from 'node:http';
import type { RouteHandler, SandboxContext } from '../context.js';
import { readBody, sendEmpty, sendJson, sendProblem } from '../http-util.js';
import { SandboxConfigError } from '../options.js';

export interface AdminRoute {
  method: string;
  pattern: RegExp;
  template: string;
  handler: RouteHandler;
}

const MAX_PAGE = 10_000;

function pageParams(req: IncomingMessage): { offset: number; limit: number } {
  const query = new URL(req.url ?? '/', 'http://sandbox').searchParams;
  const number = (name: string, fallback: number) => {
    const value = Number(query.get(name) ?? fallback);
    return Number.isInteger(value) && value >= 0 ? value : fallback;
  };
  return { offset: number('offset', 0), limit: Math.min(number('limit', 100), MAX_PAGE) };
}

function storeSizes(ctx: SandboxContext) {
  return {
    members: ctx.store.members.size,
    erasedMembers: ctx.store.erased.size,
    subscriptions: ctx.store.subscriptions.size,
  };
}

const listMembers: RouteHandler = (req, res, ctx) => {
  const { offset, limit } = pageParams(req);
  const members: unknown[] = [];
  let index = 0;
  for (const json of ctx.store.members.values()) {
    if (index++ < offset) continue;
    if (members.length >= limit) break;
    members.push(JSON.parse(json));
  }
  sendJson(res, 200, { total: ctx.store.members.size, offset, limit, members });
};

const getMember: RouteHandler = (req, res, ctx, _record, params) => {
  const memberId = params[0]!;
  const member = ctx.store.getMember(memberId);
  if (member) return sendJson(res, 200, member);
  const why = ctx.store.erased.has(memberId) ? 'was erased' : 'does not exist';
  sendProblem(res, 404, `member ${memberId} ${why}`, req.url ?? '', { erased: ctx.store.erased.has(memberId) });
};

const eraseMember: RouteHandler = async (_req, res, ctx, _record, params) => {
  ctx.store.erase(params[0]!);
  await ctx.changed();
  sendEmpty(res, 204);
};

const listSubscriptions: RouteHandler = (req, res, ctx) => {
  const customerId = new URL(req.url ?? '/', 'http://sandbox').searchParams.get('customerId');
  const subscriptions = [...ctx.store.subscriptions.values()].filter(
    (s) => customerId === null || s.customerId === customerId,
  );
  sendJson(res, 200, { total: subscriptions.length, subscriptions });
};

const reset: RouteHandler = async (_req, res, ctx) => {
  ctx.store.clear();
  ctx.stats.reset();
  ctx.faults.restart();
  ctx.capacity.resetCounters();
  await ctx.changed();
  sendEmpty(res, 204);
};

const stats: RouteHandler = (_req, res, ctx) =>
  sendJson(res, 200, ctx.stats.snapshot(storeSizes(ctx), ctx.capacity.snapshot()));

const requests: RouteHandler = (req, res, ctx) => {
  const { limit } = pageParams(req);
  sendJson(res, 200, { requests: ctx.stats.recent(limit) });
};

const getFaults: RouteHandler = (_req, res, ctx) => sendJson(res, 200, ctx.faults.current);

function changeFaults(mode: 'update' | 'replace'): RouteHandler {
  return async (req, res, ctx) => {
    const body = await readBody(req, 1024 * 1024);
    if (body.kind !== 'ok') return sendProblem(res, 413, 'faults body too large', req.url ?? '');
    try {
      const input = JSON.parse(body.body.toString('utf8') || '{}') as unknown;
      const faults = mode === 'update' ? ctx.faults.update(input) : ctx.faults.replace(input);
      ctx.capacity.admit();
      sendJson(res, 200, faults);
    } catch (error) {
      if (error instanceof SyntaxError || error instanceof SandboxConfigError)
        return sendProblem(res, 400, error.message, req.url ?? '');
      throw error;
    }
  };
}

const flush: RouteHandler = async (_req, res, ctx) => {
  await ctx.flush();
  sendEmpty(res, 204);
};

const index: RouteHandler = (_req, res) =>
  sendJson(res, 200, { endpoints: ADMIN_ROUTES.map((r) => `${r.method} ${r.template}`) });

export const ADMIN_ROUTES: AdminRoute[] = [
  { method: 'GET', pattern: /^\/_sandbox\/?$/, template: '/_sandbox', handler: index },
  {
    method: 'GET',
    pattern: /^\/_sandbox\/members$/,
    template: '/_sandbox/members?offset=&limit=',
    handler: listMembers,
  },
  {
    method: 'GET',
    pattern: /^\/_sandbox\/members\/([^/]+)$/,
    template: '/_sandbox/members/{memberId}',
    handler: getMember,
  },
  {
    method: 'DELETE',
    pattern: /^\/_sandbox\/members\/([^/]+)$/,
    template: '/_sandbox/members/{memberId}',
    handler: eraseMember,
  },
  {
    method: 'GET',
    pattern: /^\/_sandbox\/subscriptions$/,
    template: '/_sandbox/subscriptions?customerId=',
    handler: listSubscriptions,
  },
  { method: 'POST', pattern: /^\/_sandbox\/reset$/, template: '/_sandbox/reset', handler: reset },
  { method: 'GET', pattern: /^\/_sandbox\/stats$/, template: '/_sandbox/stats', handler: stats },
  { method: 'GET', pattern: /^\/_sandbox\/requests$/, template: '/_sandbox/requests?limit=', handler: requests },
  { method: 'GET', pattern: /^\/_sandbox\/faults$/, template: '/_sandbox/faults', handler: getFaults },
  { method: 'PUT', pattern: /^\/_sandbox\/faults$/, template: '/_sandbox/faults', handler: changeFaults('replace') },
  { method: 'PATCH', pattern: /^\/_sandbox\/faults$/, template: '/_sandbox/faults', handler: changeFaults('update') },
  { method: 'POST', pattern: /^\/_sandbox\/flush$/, template: '/_sandbox/flush', handler: flush },
];
