/**
 * The input opened, unless a stop comes first. A FIFO no one writes to holds its open(2) (in the thread pool,
 * which cannot be cancelled), and a pipe that sends nothing holds the first read (the format and encoding are
 * sniffed there): without this, the first Ctrl-C would wait for the input forever, before anything was sent.
 */
import { MemberctlError } from '../../errors.js';

interface Closable {
  close(): Promise<void>;
}

export async function openUnlessStopped<T extends Closable>(
  opening: Promise<T>,
  stop: AbortSignal | undefined,
  file: string,
): Promise<T> {
  if (stop === undefined) return opening;
  let onStop = (): void => undefined;
  const stopped = new Promise<never>((_, reject) => {
    onStop = () => reject(stoppedWhileOpening(file));
  });
  stop.addEventListener('abort', onStop, { once: true });
  if (stop.aborted) onStop();
  try {
    return await Promise.race([opening, stopped]);
  } catch (error) {
    // an input that opens after all (its writer came late) is closed unread; its own failure no longer matters
    if (stop.aborted)
      opening
        .then(
          (input) => input.close(),
          () => undefined,
        )
        .catch(() => undefined);
    throw error;
  } finally {
    stop.removeEventListener('abort', onStop);
  }
}

function stoppedWhileOpening(file: string): MemberctlError {
  return new MemberctlError(
    'interrupted',
    `interrupted while waiting for ${file}: nothing was read or sent`,
    'cancelled',
    {
      hint: 'A pipe or FIFO is read once something writes to it: start the program that writes it, then memberctl.',
    },
  );
}
