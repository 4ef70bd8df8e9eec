/** Where the telemetry decision came from, highest first. */
export type ConsentLayer = 'DO_NOT_TRACK' | 'MEMTRACE_TELEMETRY' | 'config' | 'config_error' | 'default';

export type ConfigFileState = { status: 'missing' } | { status: 'ok'; enabled: boolean | null } | { status: 'corrupt'; reason: string };

export interface Consent {
  enabled: boolean;
  layer: ConsentLayer;
  reason: string;
}

const OFF = new Set(['0', 'false', 'off', 'no']);
const ON = new Set(['1', 'true', 'on', 'yes']);

/** DO_NOT_TRACK set to anything but empty, `0` or `false`: every export is off, OpenTelemetry included (docs/interfaces.md#telemetry-switches). */
export function doNotTrack(env: Record<string, string | undefined>): boolean {
  const dnt = env.DO_NOT_TRACK?.trim().toLowerCase();
  return dnt !== undefined && dnt !== '' && dnt !== '0' && dnt !== 'false';
}

/** DO_NOT_TRACK > MEMTRACE_TELEMETRY > config file > default on; a corrupt config means off. */
export function resolveConsent(input: { env: Record<string, string | undefined>; file: ConfigFileState }): Consent {
  if (doNotTrack(input.env)) {
    return { enabled: false, layer: 'DO_NOT_TRACK', reason: 'DO_NOT_TRACK is set' };
  }
  const raw = input.env.MEMTRACE_TELEMETRY?.trim().toLowerCase();
  let note = '';
  if (raw !== undefined && raw !== '') {
    if (OFF.has(raw)) return { enabled: false, layer: 'MEMTRACE_TELEMETRY', reason: `MEMTRACE_TELEMETRY=${raw}` };
    if (ON.has(raw)) return { enabled: true, layer: 'MEMTRACE_TELEMETRY', reason: `MEMTRACE_TELEMETRY=${raw}` };
    note = ` (MEMTRACE_TELEMETRY=${raw} not understood; use 0/false/off or 1/true/on)`;
  }
  if (input.file.status === 'corrupt') return { enabled: false, layer: 'config_error', reason: `config file unreadable: ${input.file.reason}${note}` };
  if (input.file.status === 'ok' && input.file.enabled !== null) {
    return { enabled: input.file.enabled, layer: 'config', reason: `${input.file.enabled ? 'enabled' : 'disabled'} in the config file${note}` };
  }
  return { enabled: true, layer: 'default', reason: `on by default${note}` };
}

const truthy = (v: string | undefined) => v !== undefined && v.trim() !== '' && !OFF.has(v.trim().toLowerCase());

export const isDebugMode = (env: Record<string, string | undefined>) => truthy(env.MEMTRACE_TELEMETRY_DEBUG);
export const errorCaptureEnabled = (env: Record<string, string | undefined>) => !OFF.has((env.MEMTRACE_TELEMETRY_ERRORS ?? '').trim().toLowerCase());
