/**
 * The import use case's one entry point: `importFile(request, ports, onEvent)` owns a run's whole life — open the
 * input, find the target, open the rejects file and the durable state (journal, --changed-only state, --shard),
 * connect, run the pipeline, finish the state — and returns what happened. The command line only parses flags,
 * draws the events and renders the report; nothing it hands down comes back up.
 */
import { outputGuard, type OutputGuard } from './output-guard.js';
import type { ResultCategory } from '../../errors.js';
import { MemberApiClient } from '../../http/member-api.js';
import { memberRetryPolicy } from '../../http/retry-policy.js';
import { openRejectsWriter, type RejectsWriter } from '../../io/rejects-writer.js';
import { countRows } from '../../io/count-rows.js';
import type { Shard } from '../../state/shard.js';
import { openImportState, withOutputError, type ImportStateOptions, type ImportStateSession } from './durable/index.js';
import { readCandidates, type CandidateOptions, type CandidateStream } from '../read-candidates.js';
import { importCategory } from './category.js';
import { openUnlessStopped } from './opening-input.js';
import type { ImportEvent } from './events.js';
import { runPipeline, IMPORT_DEFAULTS } from './pipeline.js';
import type { ImportSummary, ImportTransport } from './types.js';

export interface ImportRequest {
  /** The input and how to read it (--format, --map, --limit...). */
  input: CandidateOptions;
  /** `concurrency` fixes the requests in flight; without it they adapt to the server up to `maxConcurrency`. */
  sending: {
    batchSize: number;
    maxBatchBytes: number;
    concurrency?: number;
    maxConcurrency?: number;
    retries: number;
    timeoutMs: number;
    graceMs?: number;
    /** The longest Retry-After waited (--max-retry-after); a server asking for more stops the run. Default 5 min. */
    maxRetryAfterMs?: number;
  };
  /** --rejects FILE: every record not imported or updated. */
  rejectsPath?: string;
  /** --force: replace the rejects file even when it is not the one memberctl last wrote there. */
  forceOutputs?: boolean;
  /** --resume, --journal, --changed-only, --state, --shard. */
  state: Omit<ImportStateOptions, 'sourceKey' | 'target' | 'inputRows' | 'limited' | 'endedSuspect'>;
  /** First Ctrl-C: read no more, let requests in flight settle for graceMs. */
  stopSignal?: AbortSignal;
  /** Second Ctrl-C: abandon requests in flight. */
  abortSignal?: AbortSignal;
}

/**
 * Where to send, asked for through `openTarget` once the input is open. The command line resolves a server's base
 * URL and token before the run (that contacts nothing) and starts a --sandbox only when asked: a wrong file is
 * reported before any server is contacted or started.
 */
export interface ImportTarget {
  baseUrl: URL;
  token: string;
  /** What a journal and a --state file record as their target (state/target-binding.ts). */
  name: string;
  warnings: readonly string[];
}

export type ImportConnection = ImportTransport & { close(): Promise<void> };

export interface ImportPorts {
  openTarget(): Promise<ImportTarget>;
  /** The HTTP client; the real undici one by default (tests pass an in-memory transport). */
  connect?(target: ImportTarget, options: ConnectOptions): ImportConnection;
}

export interface ConnectOptions {
  connections: number;
  timeoutMs: number;
  retries: number;
  maxRetryAfterMs?: number;
  onRetry: (info: { reason: string; delayMs: number; attempt: number }) => void;
}

/** The pipeline's events, plus what happens before it runs: warnings about the input or target, the journal's notices. */
export type ImportFileEvent = ImportEvent | { type: 'notice'; message: string };

/** What the durable side did: what --json and the summary add after the counts. */
export interface ImportStateReport {
  resumedRecords: number;
  /** How many earlier runs settled them: the closing line says what the "resuming from" notice said. */
  resumedRuns?: number;
  shard?: Shard;
  otherShards: number;
  /** Unchanged members sent again (--refresh-after). */
  refreshed: number;
  /** Members in the state this run's input did not hold (after a run that read its input whole). */
  absentFromInput?: number;
  journalPath?: string;
  journalKept: boolean;
}

export interface ImportReport {
  /** The input's display name ("members.csv", "standard input"). */
  file: string;
  summary: ImportSummary;
  state: ImportStateReport;
  category: ResultCategory;
  /**
   * --rejects was not written because the run ended before its rejects were complete (input unreadable midway):
   * an earlier file at the path stays as it was.
   */
  rejectsKept?: boolean;
}

export async function importFile(
  request: ImportRequest,
  ports: ImportPorts,
  onEventGiven: (event: ImportFileEvent) => void = () => undefined,
): Promise<ImportReport> {
  // the summary counts every warning of the run: the pipeline's and those given before and after it (the input,
  // the target, the state), which the pipeline never sees
  let warnings = 0;
  const onEvent = (event: ImportFileEvent) => {
    if (event.type === 'warning') warnings++;
    onEventGiven(event);
  };
  const { limit, ...input } = request.input;
  // The input first: a wrong file or mapping is reported before any server is contacted.
  // warnings about the input's end come once it is read
  const onEndWarning = (message: string) => onEvent({ type: 'warning', code: 'input', message });
  const opening = readCandidates({
    ...input,
    parseAhead: true,
    onEndWarning,
    holdUnterminated: request.state.changedOnly,
  });
  const stream = await openUnlessStopped(opening, request.stopSignal, input.path === '-' ? 'stdin' : input.path);
  // a stop must also end a read blocked on a pipe that sends nothing
  const closeInput = () => void stream.close();
  request.stopSignal?.addEventListener('abort', closeInput, { once: true });
  let rejects: RejectsWriter | undefined;
  let client: ImportConnection | undefined;
  let durable: ImportStateSession | undefined;
  try {
    const target = await ports.openTarget();
    for (const message of target.warnings) onEvent({ type: 'warning', code: 'target', message });
    for (const message of stream.warnings) onEvent({ type: 'warning', code: 'input', message });
    // a full disk or a size limit on an output stops the run cleanly (output-guard.ts)
    const guard = outputGuard();
    if (request.rejectsPath)
      rejects = guard.rejects(
        await openRejectsWriter(request.rejectsPath, {
          headers: stream.source.headers,
          delimiter: stream.source.delimiter,
          encoding: stream.source.encoding,
          force: request.forceOutputs,
        }),
        request.rejectsPath,
      );
    // journal, --changed-only state, --shard: checked before anything is sent (a wrong journal is a usage error)
    durable = await openDurableState(request, stream, target, limit, onEvent);
    durable.watchLocks((kind, file) => guard.lockLost(kind, file));
    client = connect(ports, target, request, onEvent);
    let summary = await run(stream, { request, limit, client, rejects, durable, onEvent, guard });
    const notUtf8 = stream.notUtf8Warning();
    if (notUtf8) onEvent({ type: 'warning', code: 'input', message: notUtf8 });
    // input unreadable midway (exit 2): the rejects hold the records before it only, and the file must be fixed and
    // imported again, which writes them whole; last night's file stays rather than a cut one taking its place
    const rejectsKept = rejects !== undefined && summary.inputError !== undefined;
    await (rejectsKept ? rejects?.abort() : rejects?.close());
    rejects = undefined;
    // (a failure on the rejects file's last write comes at its close: the journal must be kept for it too)
    summary = withOutputError(summary, guard.failure);
    const { journalKept, absentFromInput, outputError } = await durable.finish(summary);
    summary = withOutputError(summary, outputError);
    const { resumedRecords, resumedRuns, shard, journalPath, counters } = durable;
    const state = {
      resumedRecords,
      resumedRuns,
      shard,
      otherShards: counters.otherShards,
      refreshed: counters.refreshed,
      absentFromInput,
      journalPath,
      journalKept,
    };
    summary = { ...summary, warnings };
    return {
      file: stream.source.file,
      summary,
      state,
      category: importCategory(summary),
      ...(rejectsKept ? { rejectsKept } : {}),
    };
  } finally {
    request.stopSignal?.removeEventListener('abort', closeInput);
    // a run that threw did not finish its rejects: the temp file goes, an earlier file at the path stays
    await Promise.allSettled([stream.close(), rejects?.abort(), client?.close(), durable?.finish(undefined)]);
  }
}

async function openDurableState(
  request: ImportRequest,
  stream: CandidateStream,
  target: ImportTarget,
  limit: number | undefined,
  onEvent: (event: ImportFileEvent) => void,
): Promise<ImportStateSession> {
  // the shrink guard's count, before anything is sent (only with a state to compare with: see docs/reference/resume-sync-shard.md)
  const inputRows = request.state.statePath
    ? (
        await countRows(request.input.path, stream.source.format, {
          delimiter: stream.source.delimiter,
          encoding: stream.source.encoding?.name,
        })
      )?.rows
    : undefined;
  const options = {
    ...request.state,
    sourceKey: stream.sourceKey,
    inputRows,
    limited: limit !== undefined,
    endedSuspect: () => stream.end.unterminated,
    target: target.name,
    stop: request.stopSignal,
  };
  const notice = (message: string) => onEvent({ type: 'notice', message });
  return openImportState(options, notice, (message) => onEvent({ type: 'warning', code: 'state', message }));
}

function connect(
  ports: ImportPorts,
  target: ImportTarget,
  request: ImportRequest,
  onEvent: (event: ImportFileEvent) => void,
): ImportConnection {
  const { concurrency, maxConcurrency, timeoutMs, retries, maxRetryAfterMs } = request.sending;
  const options: ConnectOptions = {
    connections: concurrency ?? maxConcurrency ?? IMPORT_DEFAULTS.maxConcurrency,
    timeoutMs,
    retries,
    maxRetryAfterMs,
    onRetry: (info) => onEvent({ type: 'retry', ...info }),
  };
  if (ports.connect) return ports.connect(target, options);
  return new MemberApiClient({
    baseUrl: target.baseUrl,
    token: target.token,
    connections: options.connections,
    timeoutMs,
    retry: { ...memberRetryPolicy(retries), maxRetryAfterMs },
    onRetry: options.onRetry,
  });
}

interface RunParts {
  request: ImportRequest;
  limit?: number;
  client: ImportConnection;
  rejects?: RejectsWriter;
  durable: ImportStateSession;
  onEvent: (event: ImportFileEvent) => void;
  guard: OutputGuard;
}

function run(
  stream: CandidateStream,
  { request, limit, client, rejects, durable, onEvent, guard }: RunParts,
): Promise<ImportSummary> {
  const { batchSize, maxBatchBytes, concurrency, maxConcurrency, graceMs } = request.sending;
  return runPipeline({
    chunks: stream,
    transport: client,
    batchSize,
    maxBatchBytes,
    concurrency,
    maxConcurrency,
    limit,
    stopSignal: request.stopSignal,
    abortSignal: request.abortSignal,
    outputFailedSignal: guard.signal,
    graceMs: graceMs ?? IMPORT_DEFAULTS.graceMs,
    rejects,
    duplicates: stream.duplicates,
    omitted: stream.omitted,
    hooks: guard.hooks(durable.hooks, { journal: durable.journalPath, state: request.state.statePath }),
    onEvent,
    bytesRead: () => stream.source.bytesRead(),
    totalBytes: stream.source.totalBytes,
  });
}
