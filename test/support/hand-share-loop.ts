import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { createShareLedger, DEFAULT_SHARE_LOOP, startShareLoop, type ShareLoop } from '../../src/share/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { Timers } from '../../src/timers.js';
import { waitFor } from './wait-for.js';

export const SHOP = { project: 'shop', remoteProject: 'github.com/o/shop', label: 'me@here', databaseDisplay: 'db', databaseId: 'id-1' };

/**
 * The worker's share loop (its default paces) on a store of its own, its timers run by hand: each wait it arms is
 * kept (`nextWait` says how long it is once the look before has ended; `fire` runs it).
 */
export function startHandShareLoop(
  dir: string,
  name: string,
): { loop: ShareLoop; store: Store; ledger: ReturnType<typeof createShareLedger>; nextWait(): Promise<number>; fire(): void; stop(): Promise<void> } {
  const store = openStore(path.join(dir, `${name}.db`));
  const armed: Array<{ ms: number; fn: () => void }> = [];
  const timers: Timers = {
    setTimeout(fn, ms) {
      const entry = { ms, fn };
      armed.push(entry);
      return {
        cancel: () => {
          const at = armed.indexOf(entry);
          if (at >= 0) armed.splice(at, 1);
        },
      };
    },
  };
  const loop = startShareLoop(
    { ...DEFAULT_SHARE_LOOP, dataDir: path.join(dir, name), env: {}, homeDir: dir },
    { store, clock: { now: () => Date.now() }, timers, log: silentLogger, recordCounters() {}, reportRedactions() {} },
  );
  return {
    loop,
    store,
    ledger: createShareLedger(store.db),
    async nextWait() {
      await waitFor(() => armed.length === 1);
      return armed[0]!.ms;
    },
    fire: () => armed.shift()!.fn(),
    async stop() {
      await loop.stop();
      store.close();
    },
  };
}
