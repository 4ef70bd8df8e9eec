import { MAX_EVENT_TEXT, type HookEvent } from './hook-event.js';
import { fitPayload, marker, shortenText, STORED_EVENT_MAX_CHARS } from './fit-payload.js';

const TEXT_FIELDS = ['prompt', 'error', 'last_assistant_message'] as const;

/**
 * An event as the queue stores it: nothing is refused for its size. Prompts, errors and final
 * messages are cut to the contract's text limit, then the longest strings to the stored size,
 * always keeping head and tail around a marker that says how much went. Pure.
 */
export function fitEvent<T extends HookEvent>(event: T, maxChars = STORED_EVENT_MAX_CHARS): { event: T; shortened: boolean } {
  let capped: Record<string, unknown> = event;
  for (const key of TEXT_FIELDS) {
    const value = capped[key];
    if (typeof value === 'string' && value.length > MAX_EVENT_TEXT) {
      capped = { ...capped, [key]: shortenText(value, MAX_EVENT_TEXT - marker(value.length).length) };
    }
  }
  // fitPayload counts characters; JSON escapes (a newline is two) can make the stored row longer,
  // so the budget shrinks by what the escaping added until the row itself fits.
  let budget = maxChars;
  let fitted = fitPayload(capped, budget);
  for (let round = 0; round < 4 && fitted.shortened; round += 1) {
    const stored = JSON.stringify(fitted.value).length;
    if (stored <= maxChars) break;
    budget = Math.floor((budget * maxChars) / stored) - 1024;
    fitted = fitPayload(capped, budget);
  }
  return { event: fitted.value as T, shortened: capped !== event || fitted.shortened };
}
