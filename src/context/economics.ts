import type { ContextObservation } from './render.js';

/**
 * What injecting saved against rediscovering: the discovery tokens of the injected
 * observations minus what the injection cost. Each observation stores its share of its turn's
 * tokens (turn tokens / observations of that turn), so a turn is never counted once per
 * observation. Unknown shares are left out; if none is known the saving is unknown (null).
 */
export function tokensSavedVsNaive(injected: readonly ContextObservation[], tokensInjected: number): number | null {
  let known = false;
  let discovery = 0;
  for (const o of injected) {
    if (o.discoveryTokens === null) continue;
    known = true;
    discovery += o.discoveryTokens;
  }
  return known ? Math.round(discovery - tokensInjected) : null;
}
