/**
 * Polls a condition in real time, bounded; for waiting on other processes and servers. `explain`
 * adds what the other side left behind to the timeout's error (a failure under load must say why).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, explain?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${explain ? `\n${explain()}` : ''}`);
}
