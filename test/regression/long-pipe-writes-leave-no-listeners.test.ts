import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { drainedOrClosed } from '../support/drained.js';

// The test helpers that feed a child's stdin in chunks waited on 'drain' or 'close' and left the
// other listener behind each time, so a long write passed Node's limit of 10 listeners and the
// suite printed MaxListenersExceededWarning (mcp-bridge and hook-process helpers).
describe('a long write into a full pipe', () => {
  it('leaves no drain or close listener behind however many times it waits', async () => {
    const child = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'inherit'] });
    const sink = child.stdin!;
    const closeListeners = sink.listenerCount('close');
    let waits = 0;
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    for (let i = 0; i < 24; i += 1) {
      if (!sink.write(chunk)) {
        waits += 1;
        await drainedOrClosed(sink);
      }
    }
    expect(waits).toBeGreaterThan(10);
    expect(sink.listenerCount('drain')).toBe(0);
    expect(sink.listenerCount('close')).toBe(closeListeners);
    sink.end();
    await new Promise((resolve) => child.once('exit', resolve));
  });
});
