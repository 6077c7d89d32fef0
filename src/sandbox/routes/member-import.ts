/**
 * POST /member/v1/members/import. Order of checks: auth (401), content type (415), body size (413), capacity (wait
 * for a slot, or 503 when too many wait), then holding the slot: latency, faults (429, scripted, 503), JSON (400),
 * item count (413), schema (400), refused memberIds (400), apply, drop-after-apply. The JSON is parsed on arrival (before the latency) but a parse error answered in that order.
 * Every answer of the member area is the error object {name, message, details}.
 */
import type { SkippedEntry } from '../../schemas/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CAPACITY_RETRY_AFTER_SECONDS } from '../capacity.js';
import { carryOutFault, sleep, type RequestRecord, type RouteHandler, type SandboxContext } from '../context.js';
import { checkContentType, drainBody, readBody, utf8Text, sendError, sendJson } from '../http-util.js';
import { ERASED_REASON } from '../store.js';
import { authorizeMember } from '../tokens.js';
import { validateImportBody } from '../validation.js';

const NOT_JSON = Symbol('not JSON');

export const importMembers: RouteHandler = async (req, res, ctx, record) => {
  const auth = authorizeMember(req.headers.authorization, ctx.tokens);
  if (!auth.ok) {
    await drainBody(req);
    await sleep(ctx.faults.latencyMs);
    return sendError(res, 401, `Unauthorized: ${auth.reason}.`, null, {
      'www-authenticate': `Bearer error="invalid_token", error_description="${auth.reason.replace(/"/g, "'")}"`,
    });
  }
  const contentType = checkContentType(req.headers['content-type']);
  if (!contentType.ok) {
    await drainBody(req);
    await sleep(ctx.faults.latencyMs);
    return sendError(res, 415, `Unsupported Media Type: ${contentType.reason}.`);
  }
  const body = await readBody(req, ctx.maxBodyBytes);
  if (body.kind === 'too-large') {
    await sleep(ctx.faults.latencyMs);
    const close: Record<string, string> = body.drained ? {} : { connection: 'close' };
    return sendError(
      res,
      413,
      `Request body too large: more than ${ctx.maxBodyBytes} bytes.`,
      { maxBodyBytes: ctx.maxBodyBytes },
      close,
    );
  }
  // Parsed on arrival, so the ordering watch sees the batch's members for its whole time in flight (latency too).
  let parsed: unknown = NOT_JSON;
  let parseError = '';
  try {
    parsed = JSON.parse(utf8Text(body.body));
  } catch (error) {
    parseError = (error as Error).message;
  }
  if (Array.isArray(parsed)) {
    record.items = parsed.length;
    ctx.stats.batchReceived(parsed.length, body.body.length);
    res.once('close', ctx.stats.enterBatch(parsed));
  }
  const slot = ctx.capacity.enter();
  if (slot === 'full') {
    record.fault = 'capacity';
    const { capacity, queueLimit } = ctx.faults.capacity;
    const why = `Over capacity: ${capacity} requests served at once and ${queueLimit} waiting; the batch was not applied.`;
    return sendError(res, 503, why, null, { 'retry-after': String(CAPACITY_RETRY_AFTER_SECONDS) });
  }
  const release = await slot;
  try {
    await serve(req, res, ctx, record, parsed, parseError);
  } finally {
    release();
  }
};

/** The request holds a slot of the capacity model from here to its answer (or its dropped connection). */
async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: SandboxContext,
  record: RequestRecord,
  parsed: unknown,
  parseError: string,
): Promise<void> {
  await sleep(ctx.faults.latencyMs);
  const decision = ctx.faults.decide('import', record.draw!);
  if (
    carryOutFault(decision, req, record, (status, reason, headers) =>
      sendError(res, status, `${reason}; the batch was not applied.`, null, headers),
    )
  )
    return;
  if (parsed === NOT_JSON) return sendError(res, 400, `The request body is not valid JSON: ${parseError}.`, null);
  if (Array.isArray(parsed) && parsed.length > ctx.maxItems) {
    return sendError(res, 413, `Too many items: ${parsed.length}, at most ${ctx.maxItems} per request.`, {
      maxItems: ctx.maxItems,
      items: parsed.length,
    });
  }
  const validation = validateImportBody(parsed);
  if (!validation.ok) return sendError(res, 400, validation.message, validation.problems);
  const items = validation.items;

  const refused = items.flatMap((item, index) =>
    ctx.faults.rejected(item.memberId)
      ? [{ index, memberId: item.memberId, field: '', message: 'refused by the sandbox (rejectMemberIds)' }]
      : [],
  );
  if (refused.length > 0) {
    record.fault = 'rejectMemberIds';
    return sendError(res, 400, `${refused.length} of ${items.length} items refused.`, refused);
  }

  let importedCount = 0;
  let updatedCount = 0;
  const skipped: SkippedEntry[] = [];
  for (const item of items) {
    const outcome = ctx.store.upsert(item);
    if (outcome === 'imported') importedCount++;
    else if (outcome === 'updated') updatedCount++;
    else skipped.push({ memberId: item.memberId, reason: ERASED_REASON });
  }
  ctx.stats.applied(importedCount, updatedCount, skipped.length);
  // with --data: on disk (the append log) before it is confirmed; a failed write is a 500, never a false 200
  await ctx.changed();
  if (decision.dropAfterApply) {
    record.fault = 'drop-after-apply';
    return void req.socket.destroy();
  }
  sendJson(res, 200, {
    importedCount,
    updatedCount,
    skipped: skipped.length === 0 && ctx.faults.skippedAsNull ? null : skipped,
  });
}
