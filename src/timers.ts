/** Timers as a capability: logic schedules through this so tests can run time by hand. */
export interface Timers {
  /** Must not keep the process alive (unref'd). */
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

/** Real timers that never keep the process alive on their own. */
export const nodeTimers: Timers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
