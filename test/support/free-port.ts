import fs from 'node:fs';
import net from 'node:net';

/**
 * Ports below the kernel's ephemeral range: a `listen(0)` or an outgoing connection in another test can be handed
 * any ephemeral port, including one this helper just found free and a child has not bound yet. Each vitest worker
 * draws from its own slice so two workers do not pick the same port either.
 */
const LOWEST = 20_000;
const SLICE = 1_000;

export function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high)) return { low, high };
  } catch {
    /* not Linux: the IANA range */
  }
  return { low: 49_152, high: 65_535 };
}

function slice(): { from: number; to: number } | null {
  const top = Math.min(ephemeralRange().low, 65_536);
  if (top < LOWEST + SLICE) return null;
  const slices = Math.floor((top - LOWEST) / SLICE);
  const worker = Number(process.env.VITEST_POOL_ID ?? process.pid);
  const from = LOWEST + (Math.abs(worker) % slices) * SLICE;
  return { from, to: from + SLICE };
}

function bindable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/** A loopback port that was free a moment ago (for a child process that must bind it itself, or that must find nobody there). */
export async function freePort(): Promise<number> {
  const range = slice();
  // A machine whose ephemeral range starts low leaves no room below it: take what the kernel gives.
  if (!range) return (await bindable(0)) as number;
  const { from, to } = range;
  for (let tries = 0; tries < 200; tries++) {
    const port = await bindable(from + Math.floor(Math.random() * (to - from)));
    if (port !== null) return port;
  }
  throw new Error(`freePort: no free loopback port in ${from}–${to - 1}`);
}
