import { keepUnreadable, MAX_RAW_SPOOL_CHARS, readContextFile, spoolHookEvent, type SpooledHookEvent } from '../data-dir/index.js';
import type { Logger } from '../log.js';
import type { HookAppServices } from '../server/hook-app.js';
import { isStoreBusy } from '../store/brief-transaction.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { BusySpill } from './busy-spill.js';
import type { HookAccounting } from './hook-accounting.js';
import type { HostCall, HostIntake } from './host-intake.js';
import { createUptimeClock } from './uptime.js';
import { adapterFor, isHostName } from '../hosts/index.js';

/**
 * What stands behind the hooks' socket: the host intake, and what happens to a payload that
 * cannot be stored now (spooled by the worker itself) or ever (kept aside, counted).
 */
export function hookDoor(deps: {
  dataDir: string;
  intake: HostIntake;
  hooks: HookAccounting;
  log: Logger;
  now(): number;
  reportError(error: unknown): void;
  noticeBin?(bin: string): void;
  handOver?(version: string): 'accepted' | 'refused';
  /** A newer version is taking over: events go to the spool for it. */
  holding?(): boolean;
  /** Events wait in the spool while another process holds the store's write lock (busy-spill.ts). */
  spill?: Pick<BusySpill, 'spilling' | 'spilled'>;
  /** A hook call arrived (the worker defers its own long steps while they come). */
  heard?(nowMs: number): void;
}): HookAppServices {
  /** Keeps the call in the spool; a session start still gets the context kept for its directory. */
  const spool = (call: HostCall, failure: SpooledHookEvent['failure'], nowMs: number): { output: string } | null => {
    try {
      spoolHookEvent(deps.dataDir, entryOf(call, failure, nowMs));
    } catch {
      return null;
    }
    const sessionStart = isHostName(call.host) && adapterFor(call.host)?.kindOf(call.event) === 'session_start';
    return { output: sessionStart ? (keptContextFor(deps.dataDir, call) ?? '') : '' };
  };
  /** Keeps the call in the spool until the write lock another process holds is free (busy-spill.ts). */
  const spillFor = (spill: NonNullable<typeof deps.spill>, call: HostCall, nowMs: number) => {
    const kept = spool(call, 'busy', nowMs);
    if (kept) spill.spilled();
    return kept;
  };
  return {
    ...(deps.noticeBin ? { noticeBin: deps.noticeBin } : {}),
    ...(deps.handOver ? { handOver: deps.handOver } : {}),
    hold(call: HostCall, nowMs: number) {
      deps.heard?.(nowMs);
      // null when even the spool could not take it: stored here rather than lost.
      if (deps.holding?.() === true) return spool(call, 'refused', nowMs);
      return deps.spill?.spilling() === true ? spillFor(deps.spill, call, nowMs) : null;
    },
    now: deps.now,
    uptimeS: createUptimeClock(),
    handle: (call, nowMs) => deps.intake.handle(call, nowMs),
    keepUnreadable(call, error, nowMs) {
      deps.log.warn('a hook payload could not be read as an event; kept in spool/unreadable', { host: call.host, event: call.event, error });
      keepUnreadable(deps.dataDir, { ...entryOf(call, 'unreadable', nowMs), payload: undefined, raw: rawOf(call) });
      deps.hooks.unreadable();
    },
    spoolFailed(call, error, nowMs) {
      if (deps.spill && isStoreBusy(error)) return spillFor(deps.spill, call, nowMs);
      const fault = storageFaultOf(error);
      if (!fault) deps.reportError(error);
      deps.log.warn('a hook event could not be stored now; kept in the spool', { host: call.host, event: call.event, error: fault ?? String(error) });
      return spool(call, 'refused', nowMs);
    },
  };
}

function entryOf(call: HostCall, failure: SpooledHookEvent['failure'], at: number): SpooledHookEvent {
  const base = { v: 2 as const, host: call.host, event: call.event, via: call.via, failure, at };
  if (!('text' in call.body)) return { ...base, oversized: call.body };
  try {
    return { ...base, payload: JSON.parse(call.body.text) as unknown };
  } catch {
    return { ...base, raw: rawOf(call) };
  }
}

/** The context kept for the session's directory (the payload's `cwd`), as a start with no worker prints it. */
function keptContextFor(dataDir: string, call: HostCall): string | null {
  if (!('text' in call.body)) return null;
  try {
    const cwd = (JSON.parse(call.body.text) as { cwd?: unknown }).cwd;
    return typeof cwd === 'string' && isHostName(call.host) ? readContextFile(dataDir, cwd, adapterFor(call.host)?.contextVariant ?? null) : null;
  } catch {
    return null;
  }
}

function rawOf(call: HostCall): string {
  return 'text' in call.body ? call.body.text.slice(0, MAX_RAW_SPOOL_CHARS) : `${call.body.head}\n…\n${call.body.tail}`;
}
