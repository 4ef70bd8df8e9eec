import { adapterFor, fitEvent, isHostName, parseEvent, type AdapterDeps, type HookEvent, type HookEventKind, type HostName } from '../hosts/index.js';
import { salvageOversizedPayload } from '../hosts/oversized-payload.js';
import type { Accepted } from './event-intake.js';

/** What came from a hook: the host's own event name and payload bytes, and how the hook ran. */
export interface HostCall {
  host: string;
  event: string;
  via: string;
  /** The payload; over the input limit only its head and tail (see `totalBytes`). */
  body: { text: string } | { head: string; tail: string; totalBytes: number };
  /** The hook process's own time until its reply, when it could say (ms); null if unknown. */
  hookElapsedMs(nowMs: number): number | null;
}

export type HostCallResult =
  | { status: 200 | 202; output: string; kind: HookEventKind; accepted: Accepted }
  /** A hook name memtrace does not handle for this host: nothing to do. */
  | { status: 200; output: ''; kind: null; ignored: string }
  | { status: 400 | 404; output: ''; kind: HookEventKind | null; error: string; unreadable: boolean };

export interface HostIntakeDeps {
  /**
   * Runs `fn` as one store transaction: an event and what its hook call counted are committed
   * together, once (one commit is most of what storing a small event costs).
   */
  atomically<T>(fn: () => T): T;
  accept(event: HookEvent, nowMs: number): Accepted;
  /** The context for a session starting in `cwd` (markdown; empty when there is none). */
  contextFor(cwd: string | null, nowMs: number): string;
  /** Keeps the context a session starting in `cwd` got, for a start while no worker runs (in the host's variant of the file). */
  keepContext(cwd: string, output: string, variant: string | null): void;
  /** A line every live SessionStart gets on top while something needs the user (never kept in the file). */
  notice?(): string | null;
  /** What the host's adapter may read of its transcripts. */
  adapterDeps(host: HostName): AdapterDeps;
  /** Counts what a hook call cost and whether it was shortened (hook_rollup, /health). */
  seen(call: {
    host: string;
    sessionId: string | null;
    kind: HookEventKind | null;
    via: string;
    status: number;
    shortened: boolean;
    elapsedMs: number | null;
    nowMs: number;
  }): void;
}

/** A hook call mapped to the one event contract, or what to answer instead; nothing written yet. */
type Adapted =
  | { result: HostCallResult; shortened: false; hook?: HookEventKind }
  | {
      event: HookEvent;
      shortened: boolean;
      hook: HookEventKind;
      /** A session start: how its host prints context. */
      contextFor?: { output(markdown: string): string; variant: string | null };
    };

/**
 * A host's raw hook payload → the one event contract → the worker. Used for live hook calls (the
 * Unix socket) and spooled ones alike, so both are mapped, shortened and validated the same way.
 */
export function createHostIntake(deps: HostIntakeDeps) {
  const failed = (status: 400 | 404, error: string, kind: HookEventKind | null, unreadable = false): HostCallResult => ({
    status,
    output: '',
    kind,
    error,
    unreadable,
  });
  const ignored = (reason: string): HostCallResult => ({ status: 200, output: '', kind: null, ignored: reason });

  /**
   * Parses, adapts and validates, reading only (a transcript's tail, for Codex): done before the
   * transaction, so the store's write lock is held for the write alone. `hook`: the event the
   * hook that ran stands for (its cost is counted under it, whatever the payload turned out to be).
   */
  function adapt(call: HostCall): Adapted {
    if (!isHostName(call.host)) return { result: failed(404, `unknown host '${call.host}'`, null), shortened: false };
    const adapter = adapterFor(call.host);
    if (!adapter) return { result: failed(404, `no adapter for host '${call.host}'`, null), shortened: false };
    const kind = adapter.kindOf(call.event);
    if (!kind) return { result: ignored(`${call.host} hook '${call.event}' is not one memtrace handles`), shortened: false };
    const failedAs = (status: 400 | 404, error: string, unreadable = false): Adapted => ({
      result: failed(status, error, kind, unreadable),
      shortened: false,
      hook: kind,
    });

    let payload: unknown;
    if ('text' in call.body) {
      try {
        payload = JSON.parse(call.body.text);
      } catch {
        return failedAs(400, 'the hook payload is not valid JSON', true);
      }
    } else payload = salvageOversizedPayload(call.body.head, call.body.tail, call.body.totalBytes);
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return failedAs(400, 'the hook payload is not a JSON object', true);

    const adapted = adapter.toEvent(call.event, payload as Record<string, unknown>, deps.adapterDeps(call.host));
    if (!adapted.ok) return failedAs(400, adapted.reason, true);
    if (adapted.event === null) return { result: ignored(adapted.ignored), shortened: false };
    const fitted = fitEvent(adapted.event);
    const parsed = parseEvent(fitted.event.kind, fitted.event);
    if (!parsed.ok) return failedAs(400, parsed.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; '), true);
    return {
      event: parsed.event,
      shortened: fitted.shortened || !('text' in call.body),
      hook: kind,
      ...(parsed.event.kind === 'session_start'
        ? { contextFor: { output: (markdown: string) => adapter.contextOutput(markdown), variant: adapter.contextVariant ?? null } }
        : {}),
    };
  }

  return {
    handle(call: HostCall, nowMs: number): HostCallResult {
      const adapted = adapt(call);
      const written = (event: HookEvent): HostCallResult => {
        const accepted = deps.accept(event, nowMs);
        return { status: accepted.status === 'queued' ? 202 : 200, output: '', kind: event.kind, accepted };
      };
      // One commit for the event and what its hook call counted.
      const result = deps.atomically((): HostCallResult => {
        const result = 'event' in adapted ? written(adapted.event) : adapted.result;
        deps.seen({
          host: call.host,
          sessionId: 'event' in adapted ? adapted.event.session_id : null,
          kind: adapted.hook ?? null,
          via: call.via,
          status: result.status,
          shortened: adapted.shortened,
          elapsedMs: call.hookElapsedMs(nowMs),
          nowMs,
        });
        return result;
      });
      if (!('event' in adapted) || !adapted.contextFor || !('accepted' in result)) return result;
      const contextFor = { cwd: adapted.event.cwd ?? null, ...adapted.contextFor };
      // After the commit: building the context only reads, and must not hold the write lock.
      const markdown = deps.contextFor(contextFor.cwd, nowMs);
      const output = markdown.trim() === '' ? '' : contextFor.output(markdown);
      if (contextFor.cwd) deps.keepContext(contextFor.cwd, output, contextFor.variant);
      // The notice goes to this session only, never into the kept file.
      const notice = deps.notice?.() ?? null;
      return { ...result, output: notice === null ? output : contextFor.output(`> ${notice}\n\n${markdown}`) };
    },
  };
}

export type HostIntake = ReturnType<typeof createHostIntake>;
