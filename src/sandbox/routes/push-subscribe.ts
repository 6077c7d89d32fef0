/**
 * POST /push/v1/customers/{customerId}/subscription. Errors are RFC 7807 problem objects (400, 401, 413, 415 and
 * the injected 429/503); success is 204 with no body (the seed shows none). Stored per customer + installationId.
 */
import { subscriptionRequestSchema } from '../../schemas/index.js';
import { carryOutFault, sleep, type RouteHandler } from '../context.js';
import { checkContentType, drainBody, readBody, utf8Text, sendEmpty, sendProblem } from '../http-util.js';
import { authorizePush } from '../tokens.js';

/** A subscription request is three short strings; nothing legitimate comes near this. */
const PUSH_BODY_LIMIT = 64 * 1024;

export const subscribeDevice: RouteHandler = async (req, res, ctx, record, params) => {
  const instance = req.url?.split('?')[0] ?? '';
  const customerId = params[0]!;
  const auth = authorizePush(req.headers.authorization, ctx.tokens);
  if (!auth.ok) {
    await drainBody(req);
    await sleep(ctx.faults.latencyMs);
    return sendProblem(
      res,
      401,
      `Unauthorized: ${auth.reason}.`,
      instance,
      {},
      {
        'www-authenticate': `Bearer error="invalid_token", error_description="${auth.reason.replace(/"/g, "'")}"`,
      },
    );
  }
  const contentType = checkContentType(req.headers['content-type'], ['application/json-patch+json']);
  if (!contentType.ok) {
    await drainBody(req);
    await sleep(ctx.faults.latencyMs);
    return sendProblem(
      res,
      415,
      `${contentType.reason}; accepted: application/json-patch+json, application/json, text/json, application/*+json.`,
      instance,
    );
  }
  const body = await readBody(req, Math.min(PUSH_BODY_LIMIT, ctx.maxBodyBytes));
  await sleep(ctx.faults.latencyMs);
  if (body.kind === 'too-large') {
    return sendProblem(
      res,
      413,
      'Request body too large for a subscription request.',
      instance,
      {},
      body.drained ? {} : { connection: 'close' },
    );
  }
  const decision = ctx.faults.decide('push', record.draw!);
  if (
    carryOutFault(decision, req, record, (status, reason, headers) =>
      sendProblem(res, status, `${reason}; the subscription was not stored.`, instance, {}, headers),
    )
  )
    return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Text(body.body));
  } catch (error) {
    return sendProblem(res, 400, `The request body is not valid JSON: ${(error as Error).message}.`, instance);
  }
  const result = subscriptionRequestSchema.safeParse(parsed);
  if (!result.success) {
    // ASP.NET-style `errors`: field → messages, beside the problem's own fields.
    const errors: Record<string, string[]> = {};
    for (const issue of result.error.issues)
      (errors[issue.path.map(String).join('.') || '$'] ??= []).push(issue.message);
    const fields = Object.keys(errors).join(', ');
    return sendProblem(res, 400, `One or more validation errors occurred: ${fields}.`, instance, { errors });
  }
  ctx.store.subscribe(customerId, result.data);
  await ctx.changed(); // stored before it is confirmed
  if (decision.dropAfterApply) {
    record.fault = 'drop-after-apply';
    return void req.socket.destroy();
  }
  sendEmpty(res, 204);
};
