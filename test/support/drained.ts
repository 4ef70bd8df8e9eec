import type { Writable } from 'node:stream';

/**
 * Resolves when a full pipe drains or closes, whichever comes first, and takes the other listener
 * with it: a long write waits many times on one pipe (left behind, the listeners passed Node's
 * limit of 10 and warned of a leak).
 */
export function drainedOrClosed(sink: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      sink.off('drain', done);
      sink.off('close', done);
      resolve();
    };
    sink.once('drain', done);
    sink.once('close', done);
  });
}
