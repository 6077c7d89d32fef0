/**
 * Typed errors. Deeper layers throw these; only the entry point turns them into an exit code.
 * Every error carries a stable `code` (for --json and scripts), an exit code and a hint for humans.
 */

/** Exit codes, shared by every command (README lists them for cron users). */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  /** finished, some records invalid / skipped / rejected, none failed; or refused by the server (4xx). */
  partial: 3,
  /** some records not confirmed (safe to run again); or 5xx / network after retries. */
  failed: 4,
  credentials: 5,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ErrorOptions {
  hint?: string;
  cause?: unknown;
  /** Extra machine-readable detail for --json output. Never put secrets here. */
  details?: unknown;
}

export class MemberctlError extends Error {
  readonly code: string;
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;
  readonly details?: unknown;

  constructor(code: string, message: string, exitCode: ExitCodeValue, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** Wrong flags or arguments: nothing was done. Exit 2. */
export class UsageError extends MemberctlError {
  constructor(message: string, options: ErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'usage', message, ExitCode.usage, options);
  }
}

/** Input that cannot be read at all (missing file, not an array, truncated...). Exit 2. */
export class InputError extends MemberctlError {
  readonly file?: string;
  readonly line?: number;
  constructor(message: string, options: ErrorOptions & { code?: string; file?: string; line?: number } = {}) {
    super(options.code ?? 'input', message, ExitCode.usage, options);
    this.file = options.file;
    this.line = options.line;
  }
}

/** The server refused the credentials (401/403). Exit 5. */
export class CredentialsError extends MemberctlError {
  constructor(message: string, options: ErrorOptions = {}) {
    super('credentials', message, ExitCode.credentials, {
      hint: 'Check MEMBERCTL_TOKEN / --token-file: the token may be expired, for another environment, or lack permission.',
      ...options,
    });
  }
}

/** A request the server refused for good (4xx other than auth). Exit 3. */
export class RequestRefusedError extends MemberctlError {
  readonly status: number;
  constructor(status: number, message: string, options: ErrorOptions = {}) {
    super('refused', message, ExitCode.partial, options);
    this.status = status;
  }
}

/** Not confirmed: 5xx or network failure after retries. Exit 4. */
export class NotConfirmedError extends MemberctlError {
  readonly status?: number;
  constructor(message: string, options: ErrorOptions & { status?: number } = {}) {
    super('not-confirmed', message, ExitCode.failed, options);
    this.status = options.status;
  }
}

/** The run was interrupted (Ctrl-C / SIGTERM). Exit 4. */
export class InterruptedError extends MemberctlError {
  constructor(message = 'interrupted', options: ErrorOptions = {}) {
    super('interrupted', message, ExitCode.failed, options);
  }
}

export function isMemberctlError(e: unknown): e is MemberctlError {
  return e instanceof MemberctlError;
}
