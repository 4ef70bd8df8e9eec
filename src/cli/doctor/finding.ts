/** One line of `memtrace doctor` (docs/interfaces.md#memtrace-doctor): what was checked, how it stands, and what to do. */
export interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** The one step that fixes it; null when there is nothing to do. */
  fix: string | null;
}

export const ok = (check: string, detail: string): Finding => ({ check, status: 'ok', detail, fix: null });
export const warn = (check: string, detail: string, fix: string): Finding => ({ check, status: 'warn', detail, fix });
export const fail = (check: string, detail: string, fix: string): Finding => ({ check, status: 'fail', detail, fix });

/** A check reads the gathered snapshot and says what it found; pure, so each is tested on values. */
export type Check<S> = (snapshot: S) => Finding[];

/** Exit 0 when nothing failed, else 1: a warning is worth reading, a failure needs the user. */
export function doctorExitCode(findings: readonly Finding[]): 0 | 1 {
  return findings.some((f) => f.status === 'fail') ? 1 : 0;
}
