/**
 * The pipeline reads its input chunk by chunk: the readers' per-chunk arrays as they come (one promise per 64 KB
 * chunk), or, for callers that hand over candidates one by one (tests, other front ends), each candidate as a
 * chunk of its own, so such a source is still read no further than the pipeline takes.
 */
import type { Candidate } from '../candidate.js';
import type { ImportOptions } from './types.js';

export interface InputChunks {
  iterator: AsyncIterator<readonly unknown[]>;
  toCandidate(record: unknown): Candidate;
}

export function inputChunks(options: Pick<ImportOptions, 'candidates' | 'chunks'>): InputChunks {
  if (options.chunks && options.candidates) throw new Error('runPipeline takes either chunks or candidates, not both');
  if (options.chunks) {
    const { batches, toCandidate } = options.chunks;
    return { iterator: batches[Symbol.asyncIterator](), toCandidate: toCandidate as (record: unknown) => Candidate };
  }
  if (!options.candidates) throw new Error('runPipeline needs chunks or candidates');
  const inner = options.candidates[Symbol.asyncIterator]();
  // a plain object, not an async generator: return() must reach the source at once, not queue behind a pending next()
  const iterator: AsyncIterator<readonly unknown[]> = {
    next: async () => {
      const next = await inner.next();
      return next.done ? { done: true, value: undefined } : { done: false, value: [next.value] };
    },
    return: async () => {
      await inner.return?.();
      return { done: true, value: undefined };
    },
  };
  return { iterator, toCandidate: (candidate) => candidate as Candidate };
}
