import type { LoopTimers } from './observer-loop.js';

/** Real timers that never keep the process alive on their own. */
export const nodeTimers: LoopTimers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
