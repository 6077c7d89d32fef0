/**
 * validate's progress bar on stderr, for large files on a terminal: bytes read of the file's size, records,
 * rate and ETA. Never drawn when stderr is not a TTY or with --json (scripts read stdout; cron logs stay clean).
 */
import type cliProgress from 'cli-progress';
import type { ValidateEvent } from '../../core/validate/validate-file.js';
import { lazy } from '../../lazy.js';
import { cliIo } from '../io.js';

const progressBars = lazy<typeof cliProgress>('cli-progress');

export interface ValidateProgress {
  onEvent(event: ValidateEvent): void;
  stop(): void;
}

export function createValidateProgress(stream = cliIo().stderr as NodeJS.WriteStream): ValidateProgress {
  const started = performance.now();
  let bar: cliProgress.SingleBar | undefined;
  let knownSize = false;
  const payload = (rows: number) => {
    const seconds = (performance.now() - started) / 1000;
    return {
      rows: rows.toLocaleString('en-US'),
      rate: seconds > 0.5 ? Math.round(rows / seconds).toLocaleString('en-US') : '…',
    };
  };
  function start(totalBytes: number | undefined): void {
    knownSize = totalBytes !== undefined && totalBytes > 0;
    const format = knownSize
      ? '{bar} {percentage}% | {rows} records | {rate} rows/s | ETA {eta_formatted}'
      : '{rows} records | {rate} rows/s';
    bar = new (progressBars().SingleBar)(
      { format, stream, hideCursor: true, clearOnComplete: true, fps: 5, etaBuffer: 50, barsize: 24 },
      progressBars().Presets.shades_classic,
    );
    bar.start(knownSize ? totalBytes! : 1, 0, payload(0));
  }
  return {
    onEvent(event) {
      if (event.type === 'started') start(event.totalBytes);
      else if (event.type === 'progress')
        bar?.update(knownSize ? event.progress.bytesRead : 0, payload(event.progress.rows));
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
