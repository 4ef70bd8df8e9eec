/**
 * Session start's context as the worker answers it (the JSON every host reads,
 * `{"hookSpecificOutput":{"additionalContext":…}}`, src/hosts/host-adapter.ts), or as the worker
 * kept it for a start with no worker running (the same JSON, in a file).
 */
export function contextOf(reply: string): string | null {
  if (reply.trim() === '') return null;
  try {
    const parsed = JSON.parse(reply) as { hookSpecificOutput?: { additionalContext?: unknown } };
    const text = parsed.hookSpecificOutput?.additionalContext;
    return typeof text === 'string' && text.trim() !== '' ? text : null;
  } catch {
    return null;
  }
}

/** What the promise gives within `ms`, else '' (the agent goes on without it). */
export function withinBudget(answer: Promise<string>, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(''), ms);
    (timer as { unref?: () => void }).unref?.();
    void answer.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
