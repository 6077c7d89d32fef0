/**
 * Typed errors. Deeper layers throw these; only the entry point turns them into an exit code.
 * Every error carries a stable `code` (for --json and scripts), a result category and a hint for humans.
 */

/**
 * What became of a run, in the terms a script acts on. Core returns one (a report's category, or a thrown
 * error's); the one table in src/cli/exit-codes.ts turns it into an exit code and says what each means.
 */
export type ResultCategory =
  /** everything done */
  | 'ok'
  /** a bug */
  | 'internal'
  /** wrong flags, bad configuration or unreadable input: nothing was sent */
  | 'usage'
  /** finished, but some records invalid / skipped / rejected (none failed); or refused by the server (4xx) */
  | 'partial'
  /** not confirmed: 5xx or network after retries, interrupted; safe to run again */
  | 'not-confirmed'
  /** the server refused the credentials (401/403) */
  | 'credentials'
  /** Ctrl-C at a prompt, before anything was sent */
  | 'cancelled';

export interface ErrorOptions {
  hint?: string;
  cause?: unknown;
  /** Extra machine-readable detail for --json output. Never put secrets here. */
  details?: unknown;
  /**
   * Several problems found at once (a mapping file's), each a whole line with its own hint: rendered one line each
   * and listed in --json. The error's own message and hint are then the first one's.
   */
  problems?: readonly Problem[];
}

export interface Problem {
  message: string;
  hint?: string;
}

export class MemberctlError extends Error {
  readonly code: string;
  readonly category: ResultCategory;
  readonly hint?: string;
  readonly details?: unknown;
  readonly problems?: readonly Problem[];

  constructor(code: string, message: string, category: ResultCategory, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.category = category;
    this.hint = options.hint;
    this.details = options.details;
    this.problems = options.problems;
  }
}

/** Wrong flags or arguments: nothing was done. */
export class UsageError extends MemberctlError {
  constructor(message: string, options: ErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'usage', message, 'usage', options);
  }
}

/** Input that cannot be read at all (missing file, not an array, truncated...). */
export class InputError extends MemberctlError {
  readonly file?: string;
  readonly line?: number;
  constructor(message: string, options: ErrorOptions & { code?: string; file?: string; line?: number } = {}) {
    super(options.code ?? 'input', message, 'usage', options);
    this.file = options.file;
    this.line = options.line;
  }
}

/** The server refused the credentials (401/403). */
export class CredentialsError extends MemberctlError {
  constructor(message: string, options: ErrorOptions = {}) {
    super('credentials', message, 'credentials', {
      hint: 'Check MEMBERCTL_TOKEN / --token-file: the token may be expired, for another environment, or lack permission.',
      ...options,
    });
  }
}

/** Not confirmed: 5xx or network failure after retries. */
export class NotConfirmedError extends MemberctlError {
  readonly status?: number;
  constructor(message: string, options: ErrorOptions & { status?: number; code?: string } = {}) {
    super(options.code ?? 'not-confirmed', message, 'not-confirmed', options);
    this.status = options.status;
  }
}

export function isMemberctlError(e: unknown): e is MemberctlError {
  return e instanceof MemberctlError;
}

/**
 * The input's reader broke for a reason of this machine, not of the file: the CSV parsing worker died (out of
 * memory, killed). The run stops there like on a full disk: what was read is accounted, exit 4, --resume goes on.
 * `cause` says how it died ("out-of-memory", "exited"), as data.
 */
export class ReaderFailure extends MemberctlError {
  constructor(
    message: string,
    readonly died: 'out-of-memory' | 'exited' | 'error',
    options: ErrorOptions = {},
  ) {
    super('reader-failed', message, 'not-confirmed', options);
  }
}
