/**
 * The one exit-code table. Core says what became of a run as a `ResultCategory`; this table is the only place
 * that turns a category into a number, and every "Exit codes" text (the help of each command, the README's
 * table, checked by test/cli/exit-codes.test.ts) takes its numbers and meanings from here.
 */
import type { ResultCategory } from '../errors.js';

/** The commands whose help lists their own exit codes ('memberctl': the program's own --help). */
export type ExitCodeCommand = 'memberctl' | 'import' | 'validate' | 'subscribe' | 'config check';

interface ExitCodeRow {
  code: number;
  /** What the code means for every command (the README's table). */
  meaning: string;
  /** What it means for one command, in its words; a command not listed never ends with this code. */
  per: Partial<Record<ExitCodeCommand, string>>;
}

export const EXIT_CODES: Readonly<Record<ResultCategory, ExitCodeRow>> = {
  ok: {
    code: 0,
    meaning: 'everything done: every record imported or updated (or unchanged), the device subscribed',
    per: {
      memberctl: 'ok',
      import: 'every record imported or updated (or unchanged)',
      validate: 'every record valid',
      subscribe: 'subscribed',
      'config check': 'ready (warnings allowed)',
    },
  },
  internal: {
    code: 1,
    meaning: 'internal error — a bug: please report it with the output of `MEMBERCTL_DEBUG=1`',
    per: { memberctl: 'internal error' },
  },
  usage: {
    code: 2,
    meaning:
      'usage error, bad configuration or unreadable input: nothing was sent (or, when the input turns unreadable midway, the records before it were sent and the summary accounts for them)',
    per: {
      memberctl: 'usage or unreadable input',
      import: 'usage error or unreadable input',
      validate: 'usage error or unreadable input',
      subscribe: 'usage or invalid input (nothing sent)',
      'config check': 'config error (bad file, unknown profile, no or bad base URL, no endpoint)',
    },
  },
  partial: {
    code: 3,
    meaning:
      'finished, but some records were invalid, skipped or rejected (none failed); subscribe: refused by the server',
    per: {
      memberctl: 'some records invalid/skipped/rejected',
      import: 'some invalid, skipped or rejected, none failed',
      validate: 'some invalid',
      subscribe: 'refused by the server (4xx)',
    },
  },
  'not-confirmed': {
    code: 4,
    meaning: 'some records not confirmed (server unreachable after retries, interrupted): safe to run again',
    per: {
      memberctl: 'some records not confirmed (safe to re-run)',
      import: 'some not confirmed (safe to run again)',
      subscribe: 'not confirmed (5xx or network after retries; safe to run again)',
      'config check': 'unreachable (DNS, TCP or TLS failed)',
    },
  },
  credentials: {
    code: 5,
    meaning: 'credentials refused (401/403): check the token',
    per: {
      memberctl: 'credentials refused',
      import: 'credentials refused',
      subscribe: 'credentials refused',
      'config check': 'credentials problem (no token, unreadable, expired, refused)',
    },
  },
  cancelled: {
    // 128 + SIGINT: what a shell reports for a command it interrupted, so `$?` reads the same either way.
    code: 130,
    meaning:
      'cancelled with Ctrl-C before anything was sent or written: at a prompt (subscribe, map init --interactive), or while import waited for its input to open',
    per: {
      memberctl: 'cancelled before anything was sent',
      import: 'Ctrl-C while waiting for the input (nothing sent)',
      subscribe: 'Ctrl-C at a prompt (nothing sent)',
    },
  },
};

export function exitCodeFor(category: ResultCategory): number {
  return EXIT_CODES[category].code;
}

const rows = () => (Object.values(EXIT_CODES) as ExitCodeRow[]).sort((a, b) => a.code - b.code);

/** The "Exit codes:" block of a command's --help, one code a line. */
export function exitCodesHelp(command: ExitCodeCommand): string {
  const listed = rows().filter(({ per }) => per[command] !== undefined);
  // right-aligned, so the meanings line up when a three-digit code (130) is among them
  const width = Math.max(...listed.map(({ code }) => String(code).length));
  return `Exit codes:\n${listed.map(({ code, per }) => `  ${String(code).padStart(width)}  ${per[command]}`).join('\n')}`;
}

/** The table as Markdown, for the README (a test keeps the README's copy equal to it). */
export function exitCodesMarkdown(): string {
  return ['| code | meaning |', '|---|---|', ...rows().map(({ code, meaning }) => `| ${code} | ${meaning} |`)].join(
    '\n',
  );
}
