/** The errors of writing an output, each naming the file; the cause travels as data (`details.cause`). */
import { InputError, UsageError } from '../errors.js';

export function fileExists(path: string): UsageError {
  return new UsageError(`cannot write ${path}: the file exists`, {
    code: 'output-exists',
    hint: 'pass --force to overwrite it, or choose another file',
  });
}

/** A person reads the words, a script greps the code (both stay in the message). */
const CAUSE_WORDS: Record<string, string> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
};

/** The cause travels as data (`details.cause`: ENOSPC, EFBIG, EACCES…), the file by name. */
export function cannotWrite(path: string, purpose: string, error: unknown, step: 'open' | 'write'): InputError {
  if (error instanceof InputError || error instanceof UsageError) return error as InputError;
  const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  const hint =
    cause === 'ENOSPC'
      ? 'The disk is full: free some space, or write the file elsewhere.'
      : cause === 'EFBIG'
        ? 'The file grew past the size limit (ulimit -f or the file system): write it elsewhere or raise the limit.'
        : step === 'open'
          ? 'Check that the folder exists and is writable.'
          : 'Check free disk space and permissions.';
  const words = CAUSE_WORDS[cause];
  return new InputError(
    `${step === 'open' ? 'cannot write' : 'writing'} ${purpose} file ${path}${step === 'open' ? '' : ' failed'}: ${cause}${words ? ` (${words})` : ''}`,
    {
      code: 'output-file',
      file: path,
      hint,
      details: { cause },
      cause: error,
    },
  );
}
