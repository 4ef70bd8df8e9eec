/** The one place time is read; logic takes `nowMs` values instead. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
