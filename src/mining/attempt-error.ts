/**
 * How a mining attempt fails: the file, the store or the provider (as opposed to a bad line,
 * which is counted and skipped). A failed attempt is retried after a backoff.
 */
export class MiningAttemptError extends Error {
  constructor(
    readonly kind: 'provider_failing' | 'read' | 'store',
    message: string,
  ) {
    super(message);
    this.name = 'MiningAttemptError';
  }
}

/** Store calls that throw are store failures of the attempt. */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof MiningAttemptError) throw error;
    throw new MiningAttemptError('store', error instanceof Error ? error.message : String(error));
  }
}
