/**
 * The V8 flags a background worker is started with. The worker answers tool calls seconds apart
 * and looks idle in between, so V8's memory reducer ran full collections in those gaps; a
 * collection that reduces memory lets go of the object shapes the optimized hook path was
 * compiled against (its request and event objects are all dead between two calls), and V8 threw
 * that code away and compiled it again, on every few hundred events. Without the reducer the
 * worker spent 0.2–0.8 ms less CPU per event in paired runs of events 200 ms apart; young
 * objects' space is capped at 4 MiB so the heap it keeps instead stays small (docs/performance.md,
 * "Why V8 kept compiling: the memory reducer"). Node refuses to start on a V8 flag it does not
 * know, so they are given only to the V8 versions checked to take them (Node 20, 22, 24 and 26:
 * V8 11 to 14); on others the worker runs with V8's defaults.
 */
const FLAGS = ['--no-memory-reducer', '--max-semi-space-size=4'] as const;
const KNOWN_V8_MAJORS = { from: 11, through: 14 } as const;

/** `v8Version`: the running Node's `process.versions.v8`, since the worker runs on the same binary. */
export function workerNodeFlags(v8Version: string): readonly string[] {
  const major = Number(/^(\d+)\./.exec(v8Version)?.[1]);
  return major >= KNOWN_V8_MAJORS.from && major <= KNOWN_V8_MAJORS.through ? FLAGS : [];
}
