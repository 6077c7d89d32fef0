/**
 * "Something changed": a request slot freed, records settled, the run began to stop. The reader (waiting for room
 * in the queue) and the end of the run (waiting for records to settle) wait on this; Node's own events carry it.
 */
import { EventEmitter, once } from 'node:events';

export class Changes {
  readonly #emitter = new EventEmitter();

  notify(): void {
    this.#emitter.emit('change');
  }

  /** Resolves at the next notify(); a notify before this call is not remembered, so check, then wait. */
  async next(): Promise<void> {
    await once(this.#emitter, 'change');
  }
}
