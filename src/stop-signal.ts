/** Resolves on the first SIGINT or SIGTERM, for commands that serve until stopped. */
export function waitForStopSignal(onSignal?: (signal: NodeJS.Signals) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      onSignal?.(signal);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
