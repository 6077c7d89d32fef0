/**
 * The import's progress bar on stderr: records read, records the server answered for, rate, the requests allowed in
 * flight (the adaptive limit moves), and an ETA from the bytes read of the file's size (rows are not known in
 * advance, bytes are). Drawn only on a terminal; warnings printed while it runs go above it rather than through it.
 */
import { printable } from './printable.js';
import type cliProgress from 'cli-progress';
import type { ImportEvent } from '../core/import/index.js';
import { lazy } from '../lazy.js';
import { cliIo } from './io.js';

const progressBars = lazy<typeof cliProgress>('cli-progress');

export interface ImportProgress {
  onEvent(event: ImportEvent): void;
  /** Prints a line above the bar (or plainly when there is no bar any more). */
  log(line: string): void;
  stop(): void;
}

export function createImportProgress(stream = cliIo().stderr as NodeJS.WriteStream): ImportProgress {
  const started = performance.now();
  let multibar: cliProgress.MultiBar | undefined;
  let bar: cliProgress.SingleBar | undefined;
  let knownSize = false;

  const payload = (recordsRead: number, confirmed: number, concurrency: number) => {
    const seconds = (performance.now() - started) / 1000;
    return {
      read: recordsRead.toLocaleString('en-US'),
      confirmed: confirmed.toLocaleString('en-US'),
      rate: seconds > 0.5 ? Math.round(recordsRead / seconds).toLocaleString('en-US') : '…',
      concurrency,
    };
  };

  function start(totalBytes: number | undefined, concurrency: number): void {
    knownSize = totalBytes !== undefined && totalBytes > 0;
    const format = knownSize
      ? '{bar} {percentage}% | {read} read | {confirmed} confirmed | {rate} rows/s | concurrency {concurrency} | ETA {eta_formatted}'
      : '{read} read | {confirmed} confirmed | {rate} rows/s | concurrency {concurrency}';
    multibar = new (progressBars().MultiBar)(
      { format, stream, hideCursor: true, clearOnComplete: true, fps: 5, etaBuffer: 50, barsize: 24 },
      progressBars().Presets.shades_classic,
    );
    bar = multibar.create(knownSize ? totalBytes! : 1, 0, payload(0, 0, concurrency));
  }

  return {
    onEvent(event) {
      switch (event.type) {
        case 'run-started':
          start(event.totalBytes, event.concurrency);
          return;
        case 'progress': {
          const { recordsRead, confirmed, bytesRead, concurrency } = event.progress;
          bar?.update(knownSize ? (bytesRead ?? 0) : 0, payload(recordsRead, confirmed, concurrency));
          return;
        }
        case 'finished':
          this.stop();
          return;
        default:
          return;
      }
    },
    log(line) {
      // lines from the data (a warning naming a cell, a server's message) escaped, as Output does
      const text = printable(line.endsWith('\n') ? line : `${line}\n`, true);
      if (multibar) multibar.log(text);
      else stream.write(text);
    },
    stop() {
      multibar?.stop();
      multibar = undefined;
      bar = undefined;
    },
  };
}
